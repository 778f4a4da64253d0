import { isIdentifierPart, isDigit } from './literal-cursor.js';
import type { LiteralCursor, LiteralObject, LiteralValue } from './literal-cursor.js';

/** The two literal grammars that share this tokenizer core. */
export type Dialect = 'python' | 'js';

// Python 3 numeric literals (lexical analysis §2.4.5); `_` only between digits.
const PY_RADIX = /0(?:[xX](?:_?[0-9a-fA-F])+|[oO](?:_?[0-7])+|[bB](?:_?[01])+)/y;
const PY_DECIMAL = /(?:(?:\d(?:_?\d)*)?\.\d(?:_?\d)*|\d(?:_?\d)*\.?)(?:[eE][+-]?\d(?:_?\d)*)?/y;
const PY_INTEGER = /^(?:0(?:_?0)*|[1-9](?:_?\d)*)$/;
// ECMAScript NumericLiteral in strict code: no legacy octal, no leading zeros.
const JS_RADIX =
  /0(?:[xX][0-9a-fA-F](?:_?[0-9a-fA-F])*|[oO][0-7](?:_?[0-7])*|[bB][01](?:_?[01])*)/y;
const JS_DECIMAL =
  /(?:(?:0|[1-9](?:_?\d)*)(?:\.(?:\d(?:_?\d)*)?)?|\.\d(?:_?\d)*)(?:[eE][+-]?\d(?:_?\d)*)?/y;

/** A numeric literal's value and whether it was written as an integer. */
export interface NumberToken {
  readonly value: number;
  readonly integer: boolean;
}

function matchAt(pattern: RegExp, cur: LiteralCursor): string | undefined {
  pattern.lastIndex = cur.pos;
  return pattern.exec(cur.text)?.[0];
}

/**
 * Reads an unsigned numeric literal at the cursor. Integers outside the safe
 * range (±2^53−1) are refused rather than silently rounded; so are complex
 * numbers, BigInts and non-finite results.
 */
export function readNumber(cur: LiteralCursor, dialect: Dialect): NumberToken {
  const start = cur.pos;
  const radix = matchAt(dialect === 'python' ? PY_RADIX : JS_RADIX, cur);
  const raw = radix ?? matchAt(dialect === 'python' ? PY_DECIMAL : JS_DECIMAL, cur);
  if (raw === undefined || raw === '') throw cur.fail('invalid number');
  cur.pos += raw.length;
  // A match running past the readable range (length cap, end of line) is not a number here.
  if (cur.peek(-1) === '') throw cur.fail('invalid number', cur.pos - 1);
  const integer = radix !== undefined || !/[.eE]/.test(raw);
  const next = cur.peek();
  if (dialect === 'python' && (next === 'j' || next === 'J')) {
    throw cur.fail('complex numbers are not supported', start);
  }
  if (dialect === 'js' && next === 'n') throw cur.fail('BigInt literals are not supported', start);
  if (isIdentifierPart(next) || isDigit(next)) throw cur.fail('invalid number', start);
  if (integer && radix === undefined && dialect === 'python' && !PY_INTEGER.test(raw)) {
    throw cur.fail('leading zeros in decimal integers are not allowed', start);
  }
  const value = Number(raw.replace(/_/g, ''));
  if (integer && !Number.isSafeInteger(value)) {
    throw cur.fail('integer is beyond ±2^53-1; write it as a string', start);
  }
  if (!Number.isFinite(value)) throw cur.fail('number is out of range', start);
  return { value, integer };
}

/** Reads exactly `count` hex digits for an escape such as `\xNN`; `name` labels the error. */
export function readHexDigits(cur: LiteralCursor, count: number, name: string): number {
  const digits = cur.text.slice(cur.pos, cur.pos + count);
  if (digits.length !== count || !/^[0-9a-fA-F]+$/.test(digits) || cur.peek(count - 1) === '') {
    throw cur.fail(`truncated ${name} escape`);
  }
  cur.pos += count;
  return parseInt(digits, 16);
}

/** A code point as a string; @throws METADATA_PARSE_FAILED beyond U+10FFFF. */
export function codePointString(cur: LiteralCursor, code: number, at: number): string {
  if (code > 0x10ffff) throw cur.fail('escape is beyond U+10FFFF', at);
  return String.fromCodePoint(code);
}

/** An empty dict/object whose keys (including `__proto__`) can only ever be data. */
export function newLiteralObject(): LiteralObject {
  return Object.create(null) as LiteralObject;
}

/** A key shortened and quoted for an error message. */
export function quoteForMessage(key: string): string {
  return JSON.stringify(key.length > 60 ? `${key.slice(0, 60)}…` : key);
}

/** Stores `key` as an own data property; @throws METADATA_PARSE_FAILED on a duplicate key. */
export function setEntry(
  cur: LiteralCursor,
  target: LiteralObject,
  key: string,
  value: LiteralValue,
  keyPos: number,
): void {
  if (Object.hasOwn(target, key)) throw cur.fail(`duplicate key ${quoteForMessage(key)}`, keyPos);
  Object.defineProperty(target, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}
