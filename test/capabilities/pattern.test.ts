import { describe, expect, it } from 'vitest';
import { patternCovers, patternMatches, patternProblem } from '../../src/capabilities/index.js';

describe('patternProblem()', () => {
  it('accepts *, an exact id and prefix/*', () => {
    for (const p of ['*', 'web/scraper', 'rye/file-system/*', 'a/*', 'x+y/v@2/*']) {
      expect(patternProblem(p), p).toBeUndefined();
    }
  });

  it('refuses ?, mid-pattern or partial *, **, { templates, dots and bad ids, each saying why', () => {
    const cases: [string, RegExp][] = [
      ['', /empty/],
      ['web/?', /"\?" is not a wildcard/],
      ['web/*/x', /only be the whole pattern or the last segment/],
      ['web*', /only be the whole pattern/],
      ['web/x*', /only be the whole pattern/],
      ['*/x', /only be the whole pattern/],
      ['**', /only be the whole pattern/],
      ['web/**', /only be the whole pattern/],
      ['apps/{input:name}/*', /un-interpolated template/],
      ['{x}', /un-interpolated template/],
      ['rye.file-system/x', /contains "\."/],
      ['../x', /not an item id/],
      ['a/../*', /not an item id/],
      ['a//b', /empty path segment/],
      ['/abs', /absolute path/],
      ['/*', /prefix "" is not an item id/],
      ['a\\b', /backslash/],
      ['a\u0000b/*', /control characters/],
    ];
    for (const [p, why] of cases) expect(patternProblem(p), JSON.stringify(p)).toMatch(why);
  });
});

describe('patternMatches()', () => {
  it('matches prefixes only at a slash: arc/* never matches arcane or arc itself', () => {
    expect(patternMatches('arc/*', 'arc/x')).toBe(true);
    expect(patternMatches('arc/*', 'arc/x/y/z')).toBe(true);
    expect(patternMatches('arc/*', 'arcane')).toBe(false);
    expect(patternMatches('arc/*', 'arcane/x')).toBe(false);
    expect(patternMatches('arc/*', 'arc')).toBe(false);
  });

  it('matches exact ids exactly and * everything', () => {
    expect(patternMatches('web/x', 'web/x')).toBe(true);
    expect(patternMatches('web/x', 'web/xy')).toBe(false);
    expect(patternMatches('web/x', 'web/x/y')).toBe(false);
    expect(patternMatches('*', 'any/thing')).toBe(true);
  });
});

describe('patternCovers()', () => {
  it('orders patterns by the ids they match', () => {
    const cases: [string, string, boolean][] = [
      ['*', 'a/*', true],
      ['*', 'a', true],
      ['a/*', '*', false],
      ['a/*', 'a/b/*', true],
      ['a/*', 'a/*', true],
      ['a/b/*', 'a/*', false],
      ['a/*', 'a/b', true],
      ['a/*', 'a', false],
      ['a/*', 'ab/*', false],
      ['a/*', 'ab/c', false],
      ['a/b', 'a/b', true],
      ['a/b', 'a/b/*', false],
      ['a/b', 'a/c', false],
    ];
    for (const [outer, inner, covers] of cases)
      expect(patternCovers(outer, inner), `${outer} ⊇ ${inner}`).toBe(covers);
  });
});
