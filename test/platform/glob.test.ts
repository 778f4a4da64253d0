import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileGlob, isGlob } from '../../src/platform/index.js';

describe('compileGlob()', () => {
  it('matches * within a segment, ** across segments, ? one character', () => {
    const cases: [string, string, boolean][] = [
      ['apps/*', 'apps/todo', true],
      ['apps/*', 'apps/todo/run', false],
      ['apps/*', 'appsx/todo', false],
      ['apps/**', 'apps/todo/run/deep', true],
      ['apps/**', 'apps', false],
      ['**/run', 'run', true],
      ['**/run', 'a/b/run', true],
      ['**/run', 'a/b/running', false],
      ['a/**/z', 'a/z', true],
      ['a/**/z', 'a/b/c/z', true],
      ['*.log', 'build.log', true],
      ['*.log', 'buildXlog', false],
      ['?.py', 'a.py', true],
      ['?.py', '/.py', false],
      ['**', 'a/b/c', true],
      ['*', 'a/b', false],
    ];
    for (const [pattern, path, matched] of cases) {
      expect(compileGlob(pattern)(path), `${pattern} ~ ${path}`).toBe(matched);
    }
  });

  it('takes every other character literally', () => {
    for (const pattern of ['a.b', 'a+b', '(a)', '[ab]', 'a|b', '^a$', 'a{1}', 'a\\b']) {
      expect(compileGlob(pattern)(pattern), pattern).toBe(true);
    }
    expect(compileGlob('a.b')('axb')).toBe(false);
    expect(compileGlob('[ab]')('a')).toBe(false);
  });

  it('a pattern without wildcards matches exactly itself', () => {
    fc.assert(
      fc.property(
        fc.string().filter((s) => !isGlob(s)),
        fc.string(),
        (pattern, other) => {
          expect(compileGlob(pattern)(pattern)).toBe(true);
          expect(compileGlob(pattern)(other)).toBe(other === pattern);
        },
      ),
    );
  });

  it('a name with a line break is still one name', () => {
    expect(compileGlob('*.tmp')('a\nb.tmp')).toBe(true);
  });

  it('isGlob() is true for *, ** and ?', () => {
    expect(['a/*', 'a/**', 'a?'].every(isGlob)).toBe(true);
    expect(isGlob('apps/task-manager/build')).toBe(false);
  });
});
