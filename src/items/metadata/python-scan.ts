import {
  MAX_LITERAL_DEPTH,
  isIdentifierPart,
  isIdentifierStart,
  lineColumnAt,
  metadataError,
} from './literal-cursor.js';
import type { RyeError } from '../../errors/index.js';
import { parsePythonLiteral } from './literal-parser.js';
import type { LiteralValue } from './literal-parser.js';

/** A constant read from a module: its literal value and the line it is assigned on. */
export interface FoundConstant {
  readonly value: LiteralValue;
  readonly line: number;
}

const WHAT = 'Python module';
/** String prefixes of Python 3.14: raw, unicode, bytes, formatted, template. */
const PREFIX = /^(?:[rRuUbBfFtT]|[rR][bBfFtT]|[bBfFtT][rR])$/;

function isQuote(c: string): boolean {
  return c === '"' || c === "'";
}

function isNewline(c: string): boolean {
  return c === '\n' || c === '\r';
}

/**
 * Finds module-level `NAME = <literal>` assignments (optionally annotated,
 * `NAME: T = <literal>`) for the given names, without running or fully parsing
 * the module. Module level means column 0 of a logical line: the scanner skips
 * strings (docstrings, f-strings with nested fields), comments, bracketed
 * continuations and backslash continuations, so text inside them never counts.
 *
 * A recognised name at column 0 must be a plain assignment of a literal, once;
 * anything else (`NAME = make()`, `NAME["k"] = 1`, `NAME += …`, a second
 * assignment, `from m import NAME`) fails closed.
 *
 * @throws RyeError METADATA_PARSE_FAILED (naming the constant and its line) or,
 *   for nesting bombs, PARSE_UNSAFE_CONTENT.
 */
export function findPythonConstants(
  text: string,
  source: string,
  names: ReadonlySet<string>,
): Map<string, FoundConstant> {
  return new PythonModuleScanner(text, source, names).scan();
}

class PythonModuleScanner {
  private pos = 0;
  private brackets = 0;
  private readonly found = new Map<string, FoundConstant>();
  private braceSearch = { from: Infinity, at: -1 };

  constructor(
    private readonly text: string,
    private readonly source: string,
    private readonly names: ReadonlySet<string>,
  ) {}

  scan(): Map<string, FoundConstant> {
    const text = this.text;
    let lineStart = true;
    while (this.pos < text.length) {
      const c = text.charAt(this.pos);
      const atStatement = lineStart && this.brackets === 0;
      lineStart = isNewline(c);
      if (lineStart) this.pos++;
      else if (c === '\\') this.pos += text.startsWith('\r\n', this.pos + 1) ? 3 : 2;
      else if (c === '#') this.pos = this.lineEnd(this.pos);
      else if (isQuote(c)) this.pos = this.skipString(this.pos, '', 0);
      else if (isIdentifierPart(c)) this.word(atStatement);
      else {
        if ('([{'.includes(c)) this.brackets++;
        else if (')]}'.includes(c)) this.brackets = Math.max(0, this.brackets - 1);
        this.pos++;
      }
    }
    return this.found;
  }

  private word(atStatement: boolean): void {
    const start = this.pos;
    this.pos = this.wordEnd(start);
    const word = this.text.slice(start, this.pos);
    if (isQuote(this.text.charAt(this.pos)) && PREFIX.test(word)) {
      this.pos = this.skipString(this.pos, word.toLowerCase(), 0);
    } else if (atStatement && this.names.has(word)) this.assignment(word, start);
    else if (atStatement && (word === 'import' || word === 'from')) this.importStatement();
  }

  private assignment(name: string, start: number): void {
    const text = this.text;
    let p = this.skipBlanks(this.pos);
    if (text.charAt(p) === ':') {
      p = this.annotationEnd(p + 1);
      if (text.charAt(p) !== '=') {
        this.pos = p; // A bare annotation binds nothing.
        return;
      }
    }
    if (text.charAt(p) !== '=' || text.charAt(p + 1) === '=') {
      throw this.fail(
        `${name} is not assigned a literal (only "${name} = <literal>" is read)`,
        start,
      );
    }
    const { value, end } = parsePythonLiteral(text, p + 1, { source: this.source, what: name });
    p = this.skipBlanks(end);
    if (text.charAt(p) === ';') p = this.skipBlanks(p + 1);
    if (text.charAt(p) === '#') p = this.lineEnd(p);
    if (p < text.length && !isNewline(text.charAt(p))) {
      const found = JSON.stringify(text.charAt(p));
      throw this.fail(`unexpected ${found} after the literal assigned to ${name}`, p, name);
    }
    const previous = this.found.get(name);
    const { line } = lineColumnAt(text, start);
    if (previous !== undefined) {
      throw this.fail(`${name} is assigned twice (first on line ${previous.line})`, start, name);
    }
    this.found.set(name, { value, line });
    this.pos = p;
  }

  /** From after `:` to the `=` of `NAME: T = v`, or to the end of a bare annotation. */
  private annotationEnd(from: number): number {
    const text = this.text;
    let depth = 0;
    let p = from;
    while (p < text.length) {
      const c = text.charAt(p);
      if (depth === 0 && (isNewline(c) || c === '#' || c === ';')) return p;
      if (depth === 0 && c === '=') return p;
      if (c === '\\') p += 2;
      else if (isQuote(c)) p = this.skipString(p, '', 0);
      else if (isIdentifierPart(c)) {
        const end = this.wordEnd(p);
        const word = text.slice(p, end);
        p = isQuote(text.charAt(end)) && PREFIX.test(word) ? this.skipString(end, word, 0) : end;
      } else {
        if ('([{'.includes(c)) depth++;
        else if (')]}'.includes(c)) depth--;
        p++;
      }
    }
    return p;
  }

  /** `import a as NAME` / `from m import NAME` rebinds a recognised name: refused. */
  private importStatement(): void {
    const text = this.text;
    let depth = 0;
    while (this.pos < text.length) {
      const c = text.charAt(this.pos);
      if (depth === 0 && isNewline(c)) return;
      if (c === '#') this.pos = this.lineEnd(this.pos);
      else if (c === '\\') this.pos += 2;
      else if (isIdentifierStart(c)) {
        const start = this.pos;
        this.pos = this.wordEnd(start);
        const word = text.slice(start, this.pos);
        if (this.names.has(word)) {
          throw this.fail(`${word} is imported, not assigned a literal`, start, word);
        }
      } else {
        if (c === '(') depth++;
        else if (c === ')') depth--;
        this.pos++;
      }
    }
  }

  /** Skips a string whose opening quote is at `q`; returns the index past its end. */
  private skipString(q: number, prefix: string, nesting: number): number {
    const text = this.text;
    const quote = text.charAt(q);
    const closer = text.startsWith(quote.repeat(3), q) ? quote.repeat(3) : quote;
    const formatted = /[ft]/i.test(prefix);
    const raw = /r/i.test(prefix);
    let p = q + closer.length;
    for (;;) {
      if (p >= text.length) throw this.fail('unterminated string', q);
      const c = text.charAt(p);
      if (text.startsWith(closer, p)) return p + closer.length;
      if (closer.length === 1 && isNewline(c)) throw this.fail('unterminated string', q);
      if (c === '\\') {
        const next = text.charAt(p + 1);
        // In f-strings `\{` leaves the brace to open a field; `\N{...}` is a named escape.
        if (formatted && next === '{') p += 1;
        else if (formatted && !raw && next === 'N' && text.charAt(p + 2) === '{') {
          p = Math.max(this.closeBraceFrom(p), p + 2) + 1;
        } else p += text.startsWith('\r\n', p + 1) ? 3 : 2;
      } else if (formatted && c === '{') {
        p = text.charAt(p + 1) === '{' ? p + 2 : this.skipField(p + 1, nesting + 1, q);
      } else p++;
    }
  }

  /** Skips an f-string replacement field from after its `{`; returns the index past `}`. */
  private skipField(from: number, nesting: number, stringStart: number): number {
    if (nesting > MAX_LITERAL_DEPTH) {
      throw metadataError(
        'PARSE_UNSAFE_CONTENT',
        WHAT,
        this.source,
        `f-strings are nested deeper than ${MAX_LITERAL_DEPTH} levels`,
        this.text,
        from,
      );
    }
    const text = this.text;
    let depth = 0;
    let inSpec = false;
    let p = from;
    for (;;) {
      if (p >= text.length) throw this.fail('unterminated string', stringStart);
      const c = text.charAt(p);
      if (c === '{' && inSpec) p = this.skipField(p + 1, nesting + 1, stringStart);
      else if (c === '}' && depth === 0) return p + 1;
      else if (inSpec) p++;
      else if (isQuote(c)) p = this.skipString(p, '', nesting);
      else if (isIdentifierPart(c)) {
        const end = this.wordEnd(p);
        const word = text.slice(p, end);
        const prefixed = isQuote(text.charAt(end)) && PREFIX.test(word);
        p = prefixed ? this.skipString(end, word, nesting) : end;
      } else if (c === '#') p = this.lineEnd(p);
      else {
        // A `:` outside brackets starts the format spec, where quotes are plain text.
        if (c === ':' && depth === 0) inSpec = true;
        else if ('([{'.includes(c)) depth++;
        else if (')]}'.includes(c)) depth--;
        p++;
      }
    }
  }

  /**
   * The first `}` at or after `from` (-1: none). The last search is kept: a file
   * of `\N{` without any `}` would otherwise search to its end once per escape.
   */
  private closeBraceFrom(from: number): number {
    const last = this.braceSearch;
    if (from >= last.from && (last.at < 0 || from <= last.at)) return last.at;
    const at = this.text.indexOf('}', from);
    this.braceSearch = { from, at };
    return at;
  }

  private wordEnd(p: number): number {
    while (p < this.text.length && isIdentifierPart(this.text.charAt(p))) p++;
    return p;
  }

  private lineEnd(p: number): number {
    while (p < this.text.length && !isNewline(this.text.charAt(p))) p++;
    return p;
  }

  /** Skips spaces, tabs, form feeds and backslash continuations. */
  private skipBlanks(p: number): number {
    const text = this.text;
    for (;;) {
      const c = text.charAt(p);
      if (c === ' ' || c === '\t' || c === '\f') p++;
      else if (c === '\\' && isNewline(text.charAt(p + 1))) {
        p += text.startsWith('\r\n', p + 1) ? 3 : 2;
      } else return p;
    }
  }

  private fail(why: string, at: number, what: string = WHAT): RyeError {
    return metadataError('METADATA_PARSE_FAILED', what, this.source, why, this.text, at);
  }
}
