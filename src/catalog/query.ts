import { RyeError } from '../errors/index.js';

/** Longest query accepted, in UTF-8 bytes. */
export const MAX_QUERY_BYTES = 1024;
/** Most words a query may hold. */
export const MAX_QUERY_TERMS = 32;

/** A query turned into a safe FTS5 expression. */
export interface ParsedQuery {
  /** The words kept, in order, without duplicates (a trailing `*` kept on prefix words). */
  readonly terms: readonly string[];
  /**
   * The FTS5 MATCH expression: every word as a quoted string (implicit AND),
   * or null for a blank query (list by id).
   */
  readonly match: string | null;
  /**
   * True when the query is not blank (whitespace only) but holds no searchable
   * word (`"`, `*`, a NUL): it matches nothing rather than listing everything.
   */
  readonly matchesNothing: boolean;
}

// Whitespace, control and format characters (NUL, bidi controls…) separate words.
const SEPARATORS = /[\s\p{C}]+/u;
const SEARCHABLE = /[\p{L}\p{N}]/u;

/**
 * Turn an untrusted query into an FTS5 expression that cannot use FTS5
 * syntax: every word is a double-quoted string with `"` doubled, so `OR`,
 * `NEAR`, `-`, `:`, `*`, `^` and parentheses are literal text (the tokenizer
 * treats punctuation inside a string as a word break). A trailing `*` on a
 * word is the one operator kept: it matches words starting with it. Words
 * without a letter or digit are dropped. Pure.
 *
 * The size is checked before anything else, so a 1 MB query costs nothing.
 *
 * @throws RyeError SEARCH_QUERY_TOO_LONG (over MAX_QUERY_BYTES UTF-8 bytes or
 *   MAX_QUERY_TERMS words), USAGE_INVALID_ARGUMENT (not a string)
 */
export function parseSearchQuery(query: unknown): ParsedQuery {
  if (typeof query !== 'string') {
    throw new RyeError('USAGE_INVALID_ARGUMENT', 'Cannot search: the query must be a string', {
      actual: typeof query,
    });
  }
  // `length` first: O(1), and a string of more UTF-16 units than the cap has at least as many bytes.
  if (query.length > MAX_QUERY_BYTES || Buffer.byteLength(query, 'utf8') > MAX_QUERY_BYTES) {
    throw new RyeError(
      'SEARCH_QUERY_TOO_LONG',
      `Cannot search: the query is longer than ${MAX_QUERY_BYTES} bytes`,
      { maxBytes: MAX_QUERY_BYTES, length: query.length },
    );
  }
  const words = query.split(SEPARATORS).filter((w) => w !== '');
  const terms: string[] = [];
  for (const word of words) {
    const prefix = word.endsWith('*');
    const text = word.replace(/\*+$/, '');
    if (!SEARCHABLE.test(text)) continue;
    const term = prefix ? `${text}*` : text;
    if (!terms.includes(term)) terms.push(term);
  }
  if (terms.length > MAX_QUERY_TERMS) {
    throw new RyeError(
      'SEARCH_QUERY_TOO_LONG',
      `Cannot search: the query has ${terms.length} words, more than ${MAX_QUERY_TERMS}`,
      { maxTerms: MAX_QUERY_TERMS, terms: terms.length },
    );
  }
  if (terms.length === 0) return { terms, match: null, matchesNothing: query.trim() !== '' };
  return { terms, match: terms.map(quoteTerm).join(' '), matchesNothing: false };
}

function quoteTerm(term: string): string {
  const prefix = term.endsWith('*');
  const text = prefix ? term.slice(0, -1) : term;
  return `"${text.replaceAll('"', '""')}"${prefix ? '*' : ''}`;
}
