import { describe, expect, it } from 'vitest';
import { isRyeError } from '../../src/errors/index.js';
import { MAX_QUERY_BYTES, MAX_QUERY_TERMS, parseSearchQuery } from '../../src/catalog/index.js';

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    if (isRyeError(error)) return error.code;
    throw error;
  }
  return undefined;
}

describe('parseSearchQuery()', () => {
  it('quotes every word, so the expression is plain strings joined by AND', () => {
    expect(parseSearchQuery('api design').match).toBe('"api" "design"');
    expect(parseSearchQuery('a OR b NEAR(c d)').match).toBe('"a" "OR" "b" "NEAR(c" "d)"');
    expect(parseSearchQuery('-secret title:x').match).toBe('"-secret" "title:x"');
  });

  it('doubles quotes inside a word and keeps a trailing * as the only operator', () => {
    expect(parseSearchQuery('say"hi" run*').match).toBe('"say""hi""" "run"*');
    expect(parseSearchQuery('run**').terms).toEqual(['run*']);
    // A star inside a word is text (a word break for the tokenizer), never an operator.
    expect(parseSearchQuery('a*b').match).toBe('"a*b"');
  });

  it('treats NUL, control and bidi characters as word breaks', () => {
    expect(parseSearchQuery('a\u0000b\u202ec\td').terms).toEqual(['a', 'b', 'c', 'd']);
  });

  it('drops words without a letter or digit; a query of only those matches nothing', () => {
    for (const q of ['"', '*', '(', ')', ':', '-', '" * ( ) : -', '^', '\u0000']) {
      expect(parseSearchQuery(q), q).toEqual({ terms: [], match: null, matchesNothing: true });
    }
    expect(parseSearchQuery('  \t ')).toEqual({ terms: [], match: null, matchesNothing: false });
    expect(parseSearchQuery('')).toEqual({ terms: [], match: null, matchesNothing: false });
  });

  it('refuses a query over the byte cap before splitting it (1 MB and multi-byte)', () => {
    expect(codeOf(() => parseSearchQuery('x'.repeat(1024 * 1024)))).toBe('SEARCH_QUERY_TOO_LONG');
    expect(codeOf(() => parseSearchQuery('é'.repeat(MAX_QUERY_BYTES / 2 + 1)))).toBe(
      'SEARCH_QUERY_TOO_LONG',
    );
    expect(codeOf(() => parseSearchQuery('x'.repeat(MAX_QUERY_BYTES)))).toBeUndefined();
  });

  it('refuses more words than the cap, and a query that is not a string', () => {
    const words = Array.from({ length: MAX_QUERY_TERMS + 1 }, (_, i) => `w${i}`).join(' ');
    expect(codeOf(() => parseSearchQuery(words))).toBe('SEARCH_QUERY_TOO_LONG');
    expect(codeOf(() => parseSearchQuery({ toString: () => 'x' }))).toBe('USAGE_INVALID_ARGUMENT');
  });

  it('keeps each word once', () => {
    expect(parseSearchQuery('api api API').terms).toEqual(['api', 'API']);
  });
});
