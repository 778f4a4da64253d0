import { RyeError } from '../../errors/index.js';

/** A value a literal can denote: JSON's data model. */
export type LiteralValue = null | boolean | number | string | LiteralValue[] | LiteralObject;

/** A dict or object literal. Built with a null prototype, so every key is plain data. */
export interface LiteralObject {
  [key: string]: LiteralValue;
}

/** Containers (and parentheses) nested deeper than this are refused as unsafe. */
export const MAX_LITERAL_DEPTH = 64;

/** A single literal longer than this many characters is refused. */
export const MAX_LITERAL_LENGTH = 262_144;

/** Where a position falls, 1-based; CRLF and a lone CR each count as one line break. */
export function lineColumnAt(text: string, pos: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  const stop = Math.min(pos, text.length);
  for (let i = 0; i < stop; i++) {
    const c = text.charCodeAt(i);
    if (c === 10 || (c === 13 && text.charCodeAt(i + 1) !== 10)) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: pos - lineStart + 1 };
}

/**
 * The error every metadata reader raises, in the house message style:
 * "Cannot parse <what> in <source>: <why> at line L column C".
 */
export function metadataError(
  code: 'METADATA_PARSE_FAILED' | 'PARSE_UNSAFE_CONTENT',
  what: string,
  source: string,
  why: string,
  text: string,
  pos: number,
): RyeError {
  const { line, column } = lineColumnAt(text, pos);
  return new RyeError(
    code,
    `Cannot parse ${what} in ${source}: ${why} at line ${line} column ${column}`,
    { source, what, reason: why, line, column },
  );
}

/**
 * Identifier characters outside ASCII, by Unicode property. Made on first
 * use: building these two sets from ICU costs ~1 ms, at the start of every
 * `rye execute` that reads a tool's metadata, and almost every identifier
 * is ASCII, answered by the code below (the same answers: ASCII's
 * ID_Start is the letters, its ID_Continue the letters, digits and `_`).
 */
let idStart: RegExp | undefined;
let idContinue: RegExp | undefined;
const isAsciiLetter = (code: number): boolean => (code | 0x20) >= 0x61 && (code | 0x20) <= 0x7a;
const isAsciiStart = (code: number): boolean =>
  isAsciiLetter(code) || code === 0x5f || code === 0x24;

/** True for a character that may start an identifier (Python or JS; `$` only matters to JS). */
export function isIdentifierStart(c: string): boolean {
  const code = c.charCodeAt(0);
  if (code < 0x80 && c.length === 1) return isAsciiStart(code);
  return c !== '' && (idStart ??= /[\p{ID_Start}_$]/u).test(c);
}

/** True for a character that may continue an identifier. */
export function isIdentifierPart(c: string): boolean {
  const code = c.charCodeAt(0);
  if (code < 0x80 && c.length === 1) return isAsciiStart(code) || (code >= 0x30 && code <= 0x39);
  return c !== '' && (idContinue ??= /[\p{ID_Continue}$\u200c\u200d]/u).test(c);
}

/** True for a decimal digit. */
export function isDigit(c: string): boolean {
  return c >= '0' && c <= '9' && c.length === 1;
}

/**
 * A position in untrusted text with the shared machinery of both literal
 * dialects: bounded look-ahead, nesting depth, errors with line and column.
 */
export class LiteralCursor {
  pos: number;
  private depth = 0;
  private readonly limit: number;
  private readonly end: number;

  constructor(
    readonly text: string,
    private readonly start: number,
    readonly source: string,
    readonly what: string,
    end: number = text.length,
    maxLength: number = MAX_LITERAL_LENGTH,
  ) {
    this.pos = start;
    this.end = Math.min(end, text.length);
    this.limit = Math.min(this.end, start + maxLength);
  }

  /** The character at `pos + offset`, or '' past the end (or past the length cap). */
  peek(offset = 0): string {
    const i = this.pos + offset;
    return i < this.limit ? (this.text[i] ?? '') : '';
  }

  /** True when `s` starts at `pos` and lies wholly inside the readable range. */
  startsWith(s: string): boolean {
    return this.pos + s.length <= this.limit && this.text.startsWith(s, this.pos);
  }

  /** Reads an identifier-like word at `pos` (possibly empty) and moves past it. */
  readWord(): string {
    const start = this.pos;
    if (isIdentifierStart(this.peek())) {
      this.pos++;
      while (isIdentifierPart(this.peek())) this.pos++;
    }
    return this.text.slice(start, this.pos);
  }

  /** A METADATA_PARSE_FAILED error at `at`; reading past the length cap is reported as such. */
  fail(why: string, at: number = this.pos): RyeError {
    if (this.pos >= this.limit && this.limit < this.end) {
      const capped = `the literal is longer than ${this.limit - this.start} characters`;
      return metadataError(
        'METADATA_PARSE_FAILED',
        this.what,
        this.source,
        capped,
        this.text,
        this.limit,
      );
    }
    return metadataError('METADATA_PARSE_FAILED', this.what, this.source, why, this.text, at);
  }

  /** Opens one nesting level; @throws RyeError PARSE_UNSAFE_CONTENT past MAX_LITERAL_DEPTH. */
  enter(): void {
    this.depth++;
    if (this.depth > MAX_LITERAL_DEPTH) {
      throw metadataError(
        'PARSE_UNSAFE_CONTENT',
        this.what,
        this.source,
        `nesting is deeper than ${MAX_LITERAL_DEPTH} levels`,
        this.text,
        this.pos,
      );
    }
  }

  leave(): void {
    this.depth--;
  }
}
