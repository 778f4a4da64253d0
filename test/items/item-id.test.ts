import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isRyeError } from '../../src/errors/index.js';
import {
  isItemId,
  itemCategory,
  itemName,
  parseItemId,
  problemWith,
} from '../../src/items/index.js';

function codeOf(id: string): string | undefined {
  try {
    parseItemId(id);
    return undefined;
  } catch (error) {
    return isRyeError(error) ? error.code : 'not a RyeError';
  }
}

describe('parseItemId()', () => {
  it('accepts relative slash paths of [A-Za-z0-9_+@-] segments', () => {
    for (const id of ['rye/core/runtimes/node_runtime', 'web/scraper', 'a', 'x+y/v@2', 'a-b/_c']) {
      expect(parseItemId(id)).toBe(id);
    }
  });

  it('refuses a dot anywhere, so the dot form of capabilities is unambiguous', () => {
    for (const id of ['rye.core', 'rye/core.runtimes', 'a/b.c', 'a.', '.a', 'v1.2/tool']) {
      expect(codeOf(id), id).toBe('ITEM_ID_INVALID');
    }
    expect(problemWith('rye/file.system/x')).toMatch(/contains "\."/);
  });

  it('refuses .., empty segments, backslashes, absolute paths, drive letters and NUL', () => {
    const bad = [
      '',
      '..',
      '../x',
      'a/../b',
      'a/..',
      'a//b',
      'a/',
      '/a',
      '/etc/passwd',
      'a\\b',
      '\\\\server\\share',
      'C:/x',
      'c:x',
      'a\u0000b',
      'a/b\u0000',
      'a\nb',
      'a\u007fb',
      '-a',
      '@a/b',
      'a/+b',
      'a b',
      'x'.repeat(513),
    ];
    for (const id of bad) {
      expect(codeOf(id), JSON.stringify(id)).toBe('ITEM_ID_INVALID');
      expect(isItemId(id), JSON.stringify(id)).toBe(false);
    }
  });

  it('names the id (control characters shown as ?) in the message', () => {
    expect(() => parseItemId('a/\u0000')).toThrow(/Cannot use item id "a\/\?"/);
  });

  it('accepts exactly the ids whose segments match the alphabet (property)', () => {
    // eslint-disable-next-line no-control-regex -- NUL is one of the characters to try
    const segment = fc.stringMatching(/^[A-Za-z0-9_.+@\-\\:\u0000 ]{1,6}$/);
    fc.assert(
      fc.property(fc.array(segment, { minLength: 1, maxLength: 4 }), (segments) => {
        const id = segments.join('/');
        const expected = segments.every((s) => /^[A-Za-z0-9_][A-Za-z0-9_+@-]*$/.test(s));
        expect(problemWith(id) === undefined).toBe(expected);
        expect(isItemId(id)).toBe(expected);
      }),
    );
  });
});

describe('itemName() / itemCategory()', () => {
  it('split an id at its last slash', () => {
    expect(itemName('rye/core/bundler/bundler')).toBe('bundler');
    expect(itemCategory('rye/core/bundler/bundler')).toBe('rye/core/bundler');
    expect(itemName('top')).toBe('top');
    expect(itemCategory('top')).toBe('');
  });
});
