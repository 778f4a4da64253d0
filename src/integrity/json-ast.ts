import { RyeError } from '../errors/index.js';

/**
 * A parsed JSON document that keeps what `JSON.parse` loses: object key order
 * (entries, never a JS object, so `__proto__` is plain data) and each number's
 * lexeme and kind. Python's `json.loads` reads `1` as int and `1.0` / `1e2` as
 * float, and the two print differently, so the hashed form needs both.
 */
export type JsonNode =
  JsonObjectNode | JsonArrayNode | JsonStringNode | JsonNumberNode | JsonBooleanNode | JsonNullNode;

/** An object: entries in source order; keys are unique (the parser refuses duplicates). */
export interface JsonObjectNode {
  readonly type: 'object';
  readonly entries: readonly JsonEntry[];
}

/** One `"key": value` member of an object. */
export interface JsonEntry {
  readonly key: string;
  readonly value: JsonNode;
}

export interface JsonArrayNode {
  readonly type: 'array';
  readonly items: readonly JsonNode[];
}

/** A string as UTF-16 code units; may hold lone surrogates written as `\udXXX` escapes. */
export interface JsonStringNode {
  readonly type: 'string';
  readonly value: string;
}

/**
 * A number as written. `kind` is `int` when the lexeme has neither fraction nor
 * exponent (Python int), else `float`.
 */
export interface JsonNumberNode {
  readonly type: 'number';
  readonly lexeme: string;
  readonly kind: 'int' | 'float';
}

export interface JsonBooleanNode {
  readonly type: 'boolean';
  readonly value: boolean;
}

export interface JsonNullNode {
  readonly type: 'null';
}

/** Containers nested deeper than this are refused as a depth bomb. */
export const MAX_JSON_DEPTH = 64;

/**
 * Longest integer literal accepted, in digits: Python 3.11+ refuses to convert
 * longer ones (CVE-2020-10735), so Python could neither sign nor verify them.
 */
export const MAX_JSON_INT_DIGITS = 4300;

const NUMBER_RE = /-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?/y;
const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  '"': '"',
  '\\': '\\',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
};

/**
 * Parse untrusted JSON text strictly (RFC 8259 grammar, whitespace limited to
 * space, tab, LF, CR) into a {@link JsonNode}. Accepts exactly the texts that
 * Python's `json.loads` accepts, minus the ones refused for safety listed below.
 * Escaped lone surrogates (`"\ud800"`) are kept, as Python keeps them.
 *
 * @param source names the text in error messages (usually a path).
 * @throws RyeError METADATA_PARSE_FAILED for syntax errors, a leading BOM,
 *   `NaN`/`Infinity` literals, trailing commas, comments, unescaped control
 *   characters, or raw unpaired surrogates in the text.
 * @throws RyeError PARSE_UNSAFE_CONTENT for duplicate keys (Python silently keeps
 *   the last one; two readers could disagree on the content), nesting deeper
 *   than {@link MAX_JSON_DEPTH}, or an integer longer than {@link MAX_JSON_INT_DIGITS} digits.
 */
export function parseJsonAst(text: string, source: string): JsonNode {
  return new JsonParser(text, source).parseDocument();
}

/** Like {@link parseJsonAst}, but returns `undefined` instead of throwing a RyeError. */
export function tryParseJsonAst(text: string, source: string): JsonNode | undefined {
  try {
    return parseJsonAst(text, source);
  } catch (error) {
    // Defensive: the parser throws only RyeErrors; anything else is a bug to surface.
    /* v8 ignore else */
    if (error instanceof RyeError) return undefined;
    throw error;
  }
}

// Untrusted input is parsed here. Recursion depth is bounded by MAX_JSON_DEPTH.
class JsonParser {
  private pos = 0;

  constructor(
    private readonly text: string,
    private readonly source: string,
  ) {}

  parseDocument(): JsonNode {
    if (this.text.charCodeAt(0) === 0xfeff) {
      this.fail('a byte order mark precedes the document');
    }
    this.skipWhitespace();
    const node = this.parseValue(0);
    this.skipWhitespace();
    if (this.pos < this.text.length) this.fail('unexpected data after the document');
    return node;
  }

  private parseValue(depth: number): JsonNode {
    const ch = this.text[this.pos];
    switch (ch) {
      case '{':
        return this.parseObject(depth + 1);
      case '[':
        return this.parseArray(depth + 1);
      case '"':
        return { type: 'string', value: this.parseString() };
      case 't':
        return this.parseLiteral('true', { type: 'boolean', value: true });
      case 'f':
        return this.parseLiteral('false', { type: 'boolean', value: false });
      case 'n':
        return this.parseLiteral('null', { type: 'null' });
      case undefined:
        return this.fail('unexpected end of input, expecting a value');
      default:
        if (ch === '-' || (ch >= '0' && ch <= '9')) return this.parseNumber();
        if (ch === '/') return this.fail('comments are not JSON');
        if (this.text.startsWith('NaN', this.pos) || this.text.startsWith('Infinity', this.pos)) {
          return this.fail('NaN and Infinity are not JSON');
        }
        return this.fail(
          `unexpected character ${describe(this.text, this.pos)}, expecting a value`,
        );
    }
  }

  private parseObject(depth: number): JsonObjectNode {
    this.enter(depth);
    const entries: JsonEntry[] = [];
    const seen = new Set<string>();
    this.skipWhitespace();
    if (this.text[this.pos] === '}') {
      this.pos++;
      return { type: 'object', entries };
    }
    for (;;) {
      if (this.text[this.pos] !== '"') this.failExpectingKey(entries.length > 0);
      const keyAt = this.pos;
      const key = this.parseString();
      if (seen.has(key)) {
        this.fail(`duplicate key ${JSON.stringify(key)}`, 'PARSE_UNSAFE_CONTENT', keyAt);
      }
      seen.add(key);
      this.skipWhitespace();
      this.expect(':', "expecting ':' after a key");
      this.skipWhitespace();
      entries.push({ key, value: this.parseValue(depth) });
      this.skipWhitespace();
      if (this.text[this.pos] === '}') {
        this.pos++;
        return { type: 'object', entries };
      }
      this.expect(',', "expecting ',' or '}'");
      this.skipWhitespace();
    }
  }

  private failExpectingKey(afterComma: boolean): never {
    const ch = this.text[this.pos];
    if (ch === '/') this.fail('comments are not JSON');
    if (ch === '}' && afterComma) this.fail('trailing comma');
    if (ch === undefined) this.fail('unexpected end of input, expecting a key');
    return this.fail(`unexpected character ${describe(this.text, this.pos)}, expecting a key`);
  }

  private parseArray(depth: number): JsonArrayNode {
    this.enter(depth);
    const items: JsonNode[] = [];
    this.skipWhitespace();
    if (this.text[this.pos] === ']') {
      this.pos++;
      return { type: 'array', items };
    }
    for (;;) {
      if (this.text[this.pos] === ']') this.fail('trailing comma');
      items.push(this.parseValue(depth));
      this.skipWhitespace();
      if (this.text[this.pos] === ']') {
        this.pos++;
        return { type: 'array', items };
      }
      this.expect(',', "expecting ',' or ']'");
      this.skipWhitespace();
    }
  }

  private parseString(): string {
    const text = this.text;
    this.pos++; // opening quote
    let out = '';
    let runStart = this.pos;
    for (;;) {
      const code = text.charCodeAt(this.pos);
      if (Number.isNaN(code)) this.fail('unterminated string');
      if (code === 0x22 /* " */) {
        out += text.slice(runStart, this.pos);
        this.pos++;
        return out;
      }
      if (code === 0x5c /* \ */) {
        out += text.slice(runStart, this.pos) + this.parseEscape();
        runStart = this.pos;
        continue;
      }
      if (code < 0x20) this.fail('unescaped control character in a string');
      if (code >= 0xd800 && code <= 0xdfff) {
        // Raw surrogates only reach us from a caller that skipped UTF-8 decoding;
        // a lone one has no UTF-8 form, so Python could never have hashed it.
        const next = text.charCodeAt(this.pos + 1);
        if (code > 0xdbff || !(next >= 0xdc00 && next <= 0xdfff)) {
          this.fail('unpaired surrogate in the text (not valid Unicode)');
        }
        this.pos++;
      }
      this.pos++;
    }
  }

  private parseEscape(): string {
    const escapeAt = this.pos;
    const ch = this.text[this.pos + 1];
    if (ch === 'u') {
      const hex = this.text.slice(this.pos + 2, this.pos + 6);
      if (!/^[0-9a-fA-F]{4}$/.test(hex)) this.fail('invalid \\u escape', undefined, escapeAt);
      this.pos += 6;
      // Pairs of escapes combine into one astral character and lone halves stay
      // lone, as in Python; UTF-16 concatenation does exactly that.
      return String.fromCharCode(Number.parseInt(hex, 16));
    }
    const simple = ch === undefined ? undefined : SIMPLE_ESCAPES[ch];
    if (simple === undefined) this.fail('invalid escape in a string', undefined, escapeAt);
    this.pos += 2;
    return simple;
  }

  private parseNumber(): JsonNumberNode {
    NUMBER_RE.lastIndex = this.pos;
    const match = NUMBER_RE.exec(this.text);
    if (match === null) {
      return this.rest(9).startsWith('-Infinity')
        ? this.fail('NaN and Infinity are not JSON')
        : this.fail('invalid number');
    }
    const lexeme = match[0];
    const kind = match[1] === undefined && match[2] === undefined ? 'int' : 'float';
    const digits = lexeme.startsWith('-') ? lexeme.length - 1 : lexeme.length;
    if (kind === 'int' && digits > MAX_JSON_INT_DIGITS) {
      this.fail(
        `integer of ${digits} digits exceeds the limit of ${MAX_JSON_INT_DIGITS}`,
        'PARSE_UNSAFE_CONTENT',
      );
    }
    this.pos += lexeme.length;
    return { type: 'number', lexeme, kind };
  }

  private parseLiteral<T extends JsonNode>(word: string, node: T): T {
    if (!this.text.startsWith(word, this.pos)) {
      this.fail(`unexpected character ${describe(this.text, this.pos)}, expecting a value`);
    }
    this.pos += word.length;
    return node;
  }

  private enter(depth: number): void {
    if (depth > MAX_JSON_DEPTH) {
      this.fail(`nesting deeper than ${MAX_JSON_DEPTH} levels`, 'PARSE_UNSAFE_CONTENT');
    }
    this.pos++; // opening bracket
  }

  private expect(ch: string, why: string): void {
    if (this.text[this.pos] !== ch) {
      if (this.text[this.pos] === '/') this.fail('comments are not JSON');
      this.fail(this.pos >= this.text.length ? `unexpected end of input, ${why}` : why);
    }
    this.pos++;
  }

  private skipWhitespace(): void {
    for (;;) {
      const code = this.text.charCodeAt(this.pos);
      if (code !== 0x20 && code !== 0x0a && code !== 0x0d && code !== 0x09) return;
      this.pos++;
    }
  }

  private rest(length: number): string {
    return this.text.slice(this.pos, this.pos + length);
  }

  private fail(
    why: string,
    code: 'METADATA_PARSE_FAILED' | 'PARSE_UNSAFE_CONTENT' = 'METADATA_PARSE_FAILED',
    offset: number = this.pos,
  ): never {
    const { line, column } = lineColumn(this.text, offset);
    throw new RyeError(
      code,
      `Cannot parse JSON in ${this.source}: ${why} at line ${line} column ${column}`,
      { source: this.source, line, column, offset },
    );
  }
}

/** 1-based line and column (in code points) of a UTF-16 offset. */
function lineColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const lineStart = before.lastIndexOf('\n') + 1;
  let line = 1;
  for (let i = before.indexOf('\n'); i !== -1; i = before.indexOf('\n', i + 1)) line++;
  return { line, column: [...before.slice(lineStart)].length + 1 };
}

/** The character at `pos`, quoted; callers check first that there is one. */
function describe(text: string, pos: number): string {
  return JSON.stringify(String.fromCodePoint(text.codePointAt(pos) as number));
}

/**
 * Convert a node to plain JS values for reading metadata, as `JSON.parse` would:
 * numbers become JS numbers (lossy beyond 2^53 and 17 digits, never use this for
 * hashing), and `__proto__` keys become own data properties, never prototypes.
 */
export function jsonNodeToValue(node: JsonNode): unknown {
  switch (node.type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const { key, value } of node.entries) {
        Object.defineProperty(out, key, {
          value: jsonNodeToValue(value),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return out;
    }
    case 'array':
      return node.items.map(jsonNodeToValue);
    case 'number':
      return Number(node.lexeme);
    case 'null':
      return null;
    default:
      return node.value;
  }
}
