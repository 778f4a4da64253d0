import { isDigit, isIdentifierStart } from './literal-cursor.js';
import type { LiteralCursor, LiteralValue } from './literal-cursor.js';
import {
  codePointString,
  newLiteralObject,
  readHexDigits,
  readNumber,
  setEntry,
} from './literal-tokens.js';

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  '\\': '\\',
  "'": "'",
  '"': '"',
  a: '\x07',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
};

/** A word of one or two letters glued to a quote: a (possibly refused) string prefix. */
const STRING_PREFIX = /[A-Za-z]{1,2}["']/y;

function isNewline(c: string): boolean {
  return c === '\n' || c === '\r';
}

function isQuote(c: string): boolean {
  return c === '"' || c === "'";
}

/**
 * The Python dialect: the subset of Python 3 expressions that `ast.literal_eval`
 * would accept for JSON-like data, minus sets, bytes and non-string dict keys.
 */
export class PythonLiteralParser {
  /** Open brackets; inside them newlines and comments are whitespace. */
  private brackets = 0;

  constructor(private readonly cur: LiteralCursor) {}

  /** Parses one value; stops right after it (trailing whitespace is not consumed). */
  parseTopLevel(): LiteralValue {
    this.skipSpace();
    return this.value();
  }

  private skipSpace(): void {
    const cur = this.cur;
    for (;;) {
      const c = cur.peek();
      if (c === ' ' || c === '\t' || c === '\f') cur.pos++;
      else if (c === '\\' && isNewline(cur.peek(1))) cur.pos += cur.startsWith('\\\r\n') ? 3 : 2;
      else if (this.brackets > 0 && isNewline(c)) cur.pos++;
      else if (this.brackets > 0 && c === '#') {
        while (cur.peek() !== '' && !isNewline(cur.peek())) cur.pos++;
      } else return;
    }
  }

  private value(): LiteralValue {
    const cur = this.cur;
    const c = cur.peek();
    if (c === '{') return this.dict();
    if (c === '[') return this.list();
    if (c === '(') return this.parenthesised();
    if (isQuote(c)) return this.strings();
    if (c === '-' || c === '+') return this.signedNumber();
    if (isDigit(c) || (c === '.' && isDigit(cur.peek(1)))) return readNumber(cur, 'python').value;
    if (isIdentifierStart(c)) {
      const start = cur.pos;
      const word = cur.readWord();
      if (isQuote(cur.peek())) {
        cur.pos = start;
        return this.strings();
      }
      if (word === 'True') return true;
      if (word === 'False') return false;
      if (word === 'None') return null;
      this.skipSpace();
      const call = cur.peek() === '(';
      throw cur.fail(
        call
          ? `calls are not literals (found ${word}(...))`
          : `names are not literals (found ${word})`,
        start,
      );
    }
    if (c === '') throw cur.fail('expected a value, found the end of the input');
    if (c === '*') throw cur.fail('unpacking (*, **) is not a literal');
    throw cur.fail(`expected a value, found ${JSON.stringify(c)}`);
  }

  private signedNumber(): number {
    const cur = this.cur;
    let sign = 1;
    while (cur.peek() === '-' || cur.peek() === '+') {
      if (cur.peek() === '-') sign = -sign;
      cur.pos++;
      this.skipSpace();
    }
    const c = cur.peek();
    if (!(isDigit(c) || (c === '.' && isDigit(cur.peek(1))))) {
      throw cur.fail('unary minus and plus apply only to numbers');
    }
    const { value, integer } = readNumber(cur, 'python');
    // Python ints have no negative zero; floats do.
    return sign > 0 || (integer && value === 0) ? value : -value;
  }

  /** One or more adjacent string literals, concatenated as Python does. */
  private strings(): string {
    const cur = this.cur;
    let result = this.oneString();
    for (;;) {
      const before = cur.pos;
      this.skipSpace();
      const c = cur.peek();
      STRING_PREFIX.lastIndex = cur.pos;
      const prefixed = isIdentifierStart(c) && STRING_PREFIX.test(cur.text);
      if (!isQuote(c) && !prefixed) {
        cur.pos = before;
        return result;
      }
      result += this.oneString();
    }
  }

  private oneString(): string {
    const cur = this.cur;
    const start = cur.pos;
    const prefix = cur.readWord().toLowerCase();
    if (prefix.includes('f')) throw cur.fail('f-strings are code, not literals', start);
    if (prefix.includes('t')) throw cur.fail('t-strings are code, not literals', start);
    if (prefix.includes('b')) throw cur.fail('bytes literals are not supported', start);
    if (!['', 'r', 'u'].includes(prefix)) throw cur.fail(`invalid string prefix ${prefix}`, start);
    const raw = prefix === 'r';
    const quote = cur.peek();
    const triple = cur.startsWith(quote.repeat(3));
    const closer = triple ? quote.repeat(3) : quote;
    cur.pos += closer.length;
    let out = '';
    for (;;) {
      const c = cur.peek();
      if (c === '' || (!triple && isNewline(c))) throw cur.fail('unterminated string', start);
      if (cur.startsWith(closer)) {
        cur.pos += closer.length;
        return out;
      }
      if (c === '\\') out += raw ? this.rawBackslash(start) : this.escape(start);
      else if (c === '\r') {
        // The tokenizer reads source with universal newlines.
        cur.pos += cur.startsWith('\r\n') ? 2 : 1;
        out += '\n';
      } else {
        out += c;
        cur.pos++;
      }
    }
  }

  /** In a raw string a backslash stays, and shields the next character from ending it. */
  private rawBackslash(start: number): string {
    const cur = this.cur;
    const next = cur.peek(1);
    if (next === '') throw cur.fail('unterminated string', start);
    if (next === '\r') {
      cur.pos += cur.startsWith('\\\r\n') ? 3 : 2;
      return '\\\n';
    }
    cur.pos += 2;
    return `\\${next}`;
  }

  private escape(start: number): string {
    const cur = this.cur;
    const at = cur.pos;
    const e = cur.peek(1);
    cur.pos += 2;
    if (e === '') throw cur.fail('unterminated string', start);
    if (e === '\n') return '';
    if (e === '\r') {
      if (cur.peek() === '\n') cur.pos++;
      return '';
    }
    const simple = SIMPLE_ESCAPES[e];
    if (simple !== undefined) return simple;
    if (e >= '0' && e <= '7') {
      let digits = e;
      while (digits.length < 3 && cur.peek() >= '0' && cur.peek() <= '7') {
        digits += cur.peek();
        cur.pos++;
      }
      return String.fromCharCode(parseInt(digits, 8));
    }
    if (e === 'x') return String.fromCharCode(readHexDigits(cur, 2, '\\xNN'));
    if (e === 'u') return String.fromCharCode(readHexDigits(cur, 4, '\\uNNNN'));
    if (e === 'U') return codePointString(cur, readHexDigits(cur, 8, '\\UNNNNNNNN'), at);
    if (e === 'N') throw cur.fail('\\N{...} escapes are not supported', at);
    // Python keeps unknown escapes verbatim (with a SyntaxWarning since 3.12).
    return `\\${e}`;
  }

  private open(): void {
    this.cur.enter();
    this.cur.pos++;
    this.brackets++;
    this.skipSpace();
  }

  private close(): void {
    this.cur.pos++;
    this.brackets--;
    this.cur.leave();
  }

  /** After an item: true when the container ends, false when another item may follow. */
  private separator(closer: string): boolean {
    const cur = this.cur;
    this.skipSpace();
    if (cur.peek() === ',') {
      cur.pos++;
      this.skipSpace();
      return cur.peek() === closer;
    }
    if (cur.peek() === closer) return true;
    throw cur.fail(`expected "," or "${closer}"`);
  }

  private list(): LiteralValue[] {
    const items: LiteralValue[] = [];
    this.open();
    while (this.cur.peek() !== ']') {
      items.push(this.value());
      if (this.separator(']')) break;
    }
    this.close();
    return items;
  }

  /** `(x)` is x; `()`, `(x,)` and `(x, y)` are tuples, read as arrays. */
  private parenthesised(): LiteralValue {
    const cur = this.cur;
    this.open();
    if (cur.peek() === ')') {
      this.close();
      return [];
    }
    const first = this.value();
    this.skipSpace();
    if (cur.peek() === ')') {
      this.close();
      return first;
    }
    const items = [first];
    while (!this.separator(')')) items.push(this.value());
    this.close();
    return items;
  }

  private dict(): LiteralValue {
    const cur = this.cur;
    const start = cur.pos;
    const result = newLiteralObject();
    this.open();
    let first = true;
    while (cur.peek() !== '}') {
      const keyPos = cur.pos;
      const key = this.value();
      this.skipSpace();
      if (cur.peek() !== ':') {
        const isSet = first && (cur.peek() === ',' || cur.peek() === '}');
        throw isSet ? cur.fail('sets are not supported', start) : cur.fail('expected ":"');
      }
      if (typeof key !== 'string') throw cur.fail('dict keys must be strings', keyPos);
      first = false;
      cur.pos++;
      this.skipSpace();
      setEntry(cur, result, key, this.value(), keyPos);
      if (this.separator('}')) break;
    }
    this.close();
    return result;
  }
}
