/**
 * Literal expressions read as data, never evaluated: a hand-written
 * recursive-descent parser with two dialects (Python, JavaScript/TypeScript)
 * over one tokenizer core. Untrusted input: nesting and length are capped.
 */
import { LiteralCursor } from './literal-cursor.js';
import type { LiteralValue } from './literal-cursor.js';
import { JsLiteralParser } from './js-literal.js';
import { PythonLiteralParser } from './python-literal.js';

export { MAX_LITERAL_DEPTH, MAX_LITERAL_LENGTH } from './literal-cursor.js';
export type { LiteralObject, LiteralValue } from './literal-cursor.js';

export interface LiteralParseOptions {
  /** Where the text came from (a path), for error messages. Default `<input>`. */
  readonly source?: string;
  /** What is being read (e.g. `CONFIG_SCHEMA`), for error messages. */
  readonly what?: string;
  /** Exclusive end: the literal must lie before this index. Default: the end of the text. */
  readonly end?: number;
}

export interface LiteralParseResult {
  readonly value: LiteralValue;
  /** Index just past the literal (past a trailing `as const` / `satisfies T` in JS). */
  readonly end: number;
}

/**
 * Parses the Python literal starting at `start` (leading blanks allowed): dict,
 * list, tuple (as an array), str with any quoting and the `r`/`u` prefixes,
 * adjacent-string concatenation, int/float with an optional sign,
 * True/False/None. Inside brackets newlines and `#` comments are whitespace.
 * What follows the literal is left to the caller.
 *
 * Guarantees: nothing is evaluated; objects have a null prototype, so
 * `__proto__` is an ordinary key; integers beyond ±2^53−1 are refused, never
 * rounded. Refused: f-/t-strings, bytes, sets, non-string dict keys, duplicate
 * keys, names, calls, operators other than a leading sign.
 *
 * @throws RyeError PARSE_UNSAFE_CONTENT when nesting exceeds MAX_LITERAL_DEPTH;
 *   METADATA_PARSE_FAILED for anything else that is not such a literal.
 */
export function parsePythonLiteral(
  text: string,
  start = 0,
  options: LiteralParseOptions = {},
): LiteralParseResult {
  const cur = new LiteralCursor(
    text,
    start,
    options.source ?? '<input>',
    options.what ?? 'Python literal',
    options.end,
  );
  const value = new PythonLiteralParser(cur).parseTopLevel();
  return { value, end: cur.pos };
}

/**
 * Parses the JavaScript/TypeScript literal starting at `start` (leading blanks
 * and comments allowed): object with quoted, identifier or numeric keys, array,
 * string, template without `${}`, number with an optional sign (hex, octal,
 * binary, exponent, `_` separators), true/false/null; then tolerates a trailing
 * `as const` and `satisfies T`. What follows is left to the caller.
 *
 * Guarantees as for parsePythonLiteral. Refused: identifiers (including
 * `undefined`, `NaN`), calls, spreads, computed keys, shorthand properties,
 * methods, array holes, `${}` substitutions, BigInts, legacy octal.
 *
 * @throws RyeError PARSE_UNSAFE_CONTENT when nesting exceeds MAX_LITERAL_DEPTH;
 *   METADATA_PARSE_FAILED for anything else that is not such a literal.
 */
export function parseJsLiteral(
  text: string,
  start = 0,
  options: LiteralParseOptions = {},
): LiteralParseResult {
  const cur = new LiteralCursor(
    text,
    start,
    options.source ?? '<input>',
    options.what ?? 'JavaScript literal',
    options.end,
  );
  const value = new JsLiteralParser(cur).parseTopLevel();
  return { value, end: cur.pos };
}
