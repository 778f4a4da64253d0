import { isDigit, isIdentifierPart, isIdentifierStart } from './literal-cursor.js';
import type { LiteralCursor, LiteralValue } from './literal-cursor.js';
import {
  codePointString,
  newLiteralObject,
  readHexDigits,
  readNumber,
  setEntry,
} from './literal-tokens.js';

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
};

/** Words that start code a literal can never contain. */
const CODE_KEYWORDS = new Set(['function', 'class', 'async', 'new', 'import', 'await', 'yield']);

/** ECMAScript LineTerminator. */
export function isLineTerminator(c: string): boolean {
  return c === '\n' || c === '\r' || c === '\u2028' || c === '\u2029';
}

/**
 * Skips whitespace and comments (`//`, `/* *\/`). Returns true when a line
 * terminator was crossed (it matters to ASI and to `as`/`satisfies`).
 * @throws RyeError METADATA_PARSE_FAILED on an unterminated block comment.
 */
export function skipJsSpace(cur: LiteralCursor): boolean {
  let crossed = false;
  for (;;) {
    const c = cur.peek();
    if (c === '/' && cur.peek(1) === '/') {
      while (cur.peek() !== '' && !isLineTerminator(cur.peek())) cur.pos++;
    } else if (c === '/' && cur.peek(1) === '*') {
      const close = cur.text.indexOf('*/', cur.pos + 2);
      if (close < 0 || cur.peek(close + 1 - cur.pos) === '') {
        throw cur.fail('unterminated comment');
      }
      crossed ||= /[\n\r\u2028\u2029]/.test(cur.text.slice(cur.pos, close));
      cur.pos = close + 2;
    } else if (c !== '' && /[\s\uFEFF]/.test(c)) {
      crossed ||= isLineTerminator(c);
      cur.pos++;
    } else return crossed;
  }
}

/** Consumes `word` when it stands at the cursor as a whole word. */
export function takeKeyword(cur: LiteralCursor, word: string): boolean {
  if (!cur.startsWith(word) || isIdentifierPart(cur.peek(word.length))) return false;
  cur.pos += word.length;
  return true;
}

/**
 * Skips a TypeScript type: up to `=` (not `=>`), `;` or `,` outside brackets,
 * or, for `satisfies`, also a line break or an unmatched closing bracket.
 * @throws RyeError METADATA_PARSE_FAILED when an annotation never reaches `=`.
 */
export function skipTsType(cur: LiteralCursor, mode: 'annotation' | 'satisfies'): void {
  let depth = 0;
  for (;;) {
    if (depth === 0 && mode === 'satisfies') {
      const before = cur.pos;
      if (skipJsSpace(cur)) {
        cur.pos = before;
        return;
      }
    } else skipJsSpace(cur);
    const c = cur.peek();
    if (c === '') {
      if (mode === 'annotation' || depth > 0) throw cur.fail('unterminated type');
      return;
    }
    if (c === '=' && cur.peek(1) === '>') cur.pos += 2;
    else if (depth === 0 && (c === '=' || c === ';' || c === ',')) return;
    else if (c === '"' || c === "'" || c === '`') skipQuoted(cur, c);
    else if ('([{<'.includes(c)) {
      depth++;
      cur.pos++;
    } else if (')]}>'.includes(c)) {
      if (depth === 0) return;
      depth--;
      cur.pos++;
    } else cur.pos++;
  }
}

function skipQuoted(cur: LiteralCursor, quote: string): void {
  const start = cur.pos;
  cur.pos++;
  while (cur.peek() !== quote) {
    if (cur.peek() === '') throw cur.fail('unterminated string', start);
    cur.pos += cur.peek() === '\\' ? 2 : 1;
  }
  cur.pos++;
}

/**
 * The JavaScript/TypeScript dialect: JSON-like object, array, string, template
 * (without substitutions), number and keyword literals, as strict-mode code reads them.
 */
export class JsLiteralParser {
  constructor(private readonly cur: LiteralCursor) {}

  /** Parses one value plus an optional trailing `as const` and `satisfies T`. */
  parseTopLevel(): LiteralValue {
    skipJsSpace(this.cur);
    const result = this.value();
    this.trailingAssertions();
    return result;
  }

  private trailingAssertions(): void {
    const cur = this.cur;
    let before = cur.pos;
    // TypeScript reads `as`/`satisfies` only on the same line as the expression.
    if (!skipJsSpace(cur) && takeKeyword(cur, 'as')) {
      skipJsSpace(cur);
      if (!takeKeyword(cur, 'const')) throw cur.fail('only "as const" may follow a literal');
      before = cur.pos;
    }
    cur.pos = before;
    if (skipJsSpace(cur) || !takeKeyword(cur, 'satisfies')) {
      cur.pos = before;
      return;
    }
    skipJsSpace(cur);
    const typeStart = cur.pos;
    skipTsType(cur, 'satisfies');
    if (cur.pos === typeStart) throw cur.fail('expected a type after "satisfies"');
  }

  private value(): LiteralValue {
    const cur = this.cur;
    const c = cur.peek();
    if (c === '{') return this.object();
    if (c === '[') return this.array();
    if (c === '"' || c === "'") return this.string();
    if (c === '`') return this.template();
    if (c === '-' || c === '+') return this.signedNumber();
    if (isDigit(c) || (c === '.' && isDigit(cur.peek(1)))) return readNumber(cur, 'js').value;
    if (cur.startsWith('...')) throw cur.fail('spread (...) is not a literal');
    if (isIdentifierStart(c)) {
      const start = cur.pos;
      const word = cur.readWord();
      if (word === 'true') return true;
      if (word === 'false') return false;
      if (word === 'null') return null;
      if (CODE_KEYWORDS.has(word))
        throw cur.fail(`${word} expressions are code, not literals`, start);
      skipJsSpace(cur);
      if (cur.peek() === '`') throw cur.fail('tagged templates are code, not literals', start);
      const call = cur.peek() === '(';
      throw cur.fail(
        call
          ? `calls are not literals (found ${word}(...))`
          : `names are not literals (found ${word})`,
        start,
      );
    }
    if (c === '') throw cur.fail('expected a value, found the end of the input');
    throw cur.fail(`expected a value, found ${JSON.stringify(c)}`);
  }

  private signedNumber(): number {
    const cur = this.cur;
    const negative = cur.peek() === '-';
    cur.pos++;
    skipJsSpace(cur);
    const c = cur.peek();
    if (!(isDigit(c) || (c === '.' && isDigit(cur.peek(1))))) {
      throw cur.fail('unary minus and plus apply only to numbers');
    }
    const { value } = readNumber(cur, 'js');
    return negative ? -value : value;
  }

  private string(): string {
    const cur = this.cur;
    const start = cur.pos;
    const quote = cur.peek();
    cur.pos++;
    let out = '';
    for (;;) {
      const c = cur.peek();
      if (c === '' || c === '\n' || c === '\r') throw cur.fail('unterminated string', start);
      if (c === quote) {
        cur.pos++;
        return out;
      }
      if (c === '\\') out += this.escape(start);
      else {
        out += c;
        cur.pos++;
      }
    }
  }

  private template(): string {
    const cur = this.cur;
    const start = cur.pos;
    cur.pos++;
    let out = '';
    for (;;) {
      const c = cur.peek();
      if (c === '') throw cur.fail('unterminated template literal', start);
      if (c === '`') {
        cur.pos++;
        return out;
      }
      if (c === '$' && cur.peek(1) === '{') {
        throw cur.fail('template substitutions (${...}) are code, not literals');
      }
      if (c === '\\') out += this.escape(start);
      else if (c === '\r') {
        // Template values normalise CR and CRLF to LF (ECMA-262 §12.9.6).
        cur.pos += cur.startsWith('\r\n') ? 2 : 1;
        out += '\n';
      } else {
        out += c;
        cur.pos++;
      }
    }
  }

  private escape(start: number): string {
    const cur = this.cur;
    const at = cur.pos;
    const e = cur.peek(1);
    cur.pos += 2;
    if (e === '') throw cur.fail('unterminated string', start);
    if (e === '\r') {
      if (cur.peek() === '\n') cur.pos++;
      return '';
    }
    if (isLineTerminator(e)) return '';
    const simple = SIMPLE_ESCAPES[e];
    if (simple !== undefined) return simple;
    if (e === '0' && !isDigit(cur.peek())) return '\0';
    if (isDigit(e)) throw cur.fail(`\\${e} escapes are not allowed in strict-mode code`, at);
    if (e === 'x') return String.fromCharCode(readHexDigits(cur, 2, '\\xNN'));
    if (e === 'u' && cur.peek() === '{') {
      const close = cur.text.indexOf('}', cur.pos);
      const digits = close < 0 ? '' : cur.text.slice(cur.pos + 1, close);
      if (!/^[0-9a-fA-F]{1,8}$/.test(digits) || cur.peek(close - cur.pos) === '') {
        throw cur.fail('invalid \\u{...} escape', at);
      }
      cur.pos = close + 1;
      return codePointString(cur, parseInt(digits, 16), at);
    }
    if (e === 'u') return String.fromCharCode(readHexDigits(cur, 4, '\\uNNNN'));
    return e;
  }

  private array(): LiteralValue[] {
    const cur = this.cur;
    const items: LiteralValue[] = [];
    cur.enter();
    cur.pos++;
    skipJsSpace(cur);
    while (cur.peek() !== ']') {
      if (cur.peek() === ',') throw cur.fail('array holes are not literals');
      items.push(this.value());
      if (this.separator(']')) break;
    }
    cur.pos++;
    cur.leave();
    return items;
  }

  private object(): LiteralValue {
    const cur = this.cur;
    const result = newLiteralObject();
    cur.enter();
    cur.pos++;
    skipJsSpace(cur);
    while (cur.peek() !== '}') {
      const keyPos = cur.pos;
      const key = this.propertyKey();
      skipJsSpace(cur);
      if (cur.peek() !== ':') throw this.notAProperty(key);
      cur.pos++;
      skipJsSpace(cur);
      setEntry(cur, result, key, this.value(), keyPos);
      if (this.separator('}')) break;
    }
    cur.pos++;
    cur.leave();
    return result;
  }

  /** After an item: true at the closing bracket, false (past a comma) when more may follow. */
  private separator(closer: string): boolean {
    const cur = this.cur;
    skipJsSpace(cur);
    if (cur.peek() === closer) return true;
    if (cur.peek() !== ',') throw cur.fail(`expected "," or "${closer}"`);
    cur.pos++;
    skipJsSpace(cur);
    return false;
  }

  private propertyKey(): string {
    const cur = this.cur;
    const c = cur.peek();
    if (c === '"' || c === "'") return this.string();
    if (isDigit(c) || (c === '.' && isDigit(cur.peek(1)))) {
      return String(readNumber(cur, 'js').value);
    }
    if (isIdentifierStart(c)) return cur.readWord();
    if (c === '[') throw cur.fail('computed keys are not literals');
    if (cur.startsWith('...')) throw cur.fail('spread (...) is not a literal');
    if (c === '') throw cur.fail('expected a property key, found the end of the input');
    throw cur.fail(`expected a property key, found ${JSON.stringify(c)}`);
  }

  private notAProperty(key: string): Error {
    const cur = this.cur;
    const c = cur.peek();
    if (c === ',' || c === '}') return cur.fail('shorthand properties are not literals');
    if (c === '(' || c === '*' || ['get', 'set', 'async'].includes(key)) {
      return cur.fail('methods and accessors are not literals');
    }
    return cur.fail('expected ":"');
  }
}
