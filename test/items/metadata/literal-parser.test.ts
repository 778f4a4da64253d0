import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isRyeError } from '../../../src/errors/index.js';
import type { ErrorCode } from '../../../src/errors/index.js';
import {
  MAX_LITERAL_DEPTH,
  MAX_LITERAL_LENGTH,
  parseJsLiteral,
  parsePythonLiteral,
} from '../../../src/items/metadata/literal-parser.js';
import { isIdentifierPart, isIdentifierStart } from '../../../src/items/metadata/literal-cursor.js';
import type { LiteralValue } from '../../../src/items/metadata/literal-parser.js';

const py = (text: string): LiteralValue => parsePythonLiteral(text).value;
const js = (text: string): LiteralValue => parseJsLiteral(text).value;

/** Runs `parse` and returns the RyeError it throws (failing the test if it does not). */
function refusal(parse: () => unknown, code: ErrorCode = 'METADATA_PARSE_FAILED'): Error {
  try {
    parse();
  } catch (error) {
    expect(isRyeError(error, code), `expected ${code}, got ${String(error)}`).toBe(true);
    return error as Error;
  }
  throw new Error('expected the parse to be refused');
}

describe('parsePythonLiteral()', () => {
  it('reads dicts, lists and tuples (as arrays), nested', () => {
    expect(py(`{"a": [1, 2, (3, 4)], 'b': {"c": ()}}`)).toEqual({
      a: [1, 2, [3, 4]],
      b: { c: [] },
    });
    expect(py('{}')).toEqual({});
    expect(py('[]')).toEqual([]);
    expect(py('(1,)')).toEqual([1]);
  });

  it('reads a parenthesised value as the value itself', () => {
    expect(py('((1))')).toBe(1);
    expect(py('("a")')).toBe('a');
  });

  it('reads True, False and None', () => {
    expect(py('[True, False, None]')).toEqual([true, false, null]);
  });

  it('accepts trailing commas, comments and newlines inside brackets', () => {
    const text = `{\n  "a": 1,  # one\n  # a whole-line comment\n  "b": [\n    2,\n  ],\n}`;
    expect(py(text)).toEqual({ a: 1, b: [2] });
  });

  it('reads every quoting style', () => {
    expect(py(`'single'`)).toBe('single');
    expect(py(`"double"`)).toBe('double');
    expect(py(`'''tri\nple'''`)).toBe('tri\nple');
    expect(py(`"""it's "quoted" """`)).toBe(`it's "quoted" `);
  });

  it('decodes escapes', () => {
    expect(py(String.raw`"\n\t\\\'\"\a\b\f\r\v"`)).toBe('\n\t\\\'"\x07\b\f\r\v');
    expect(py(String.raw`"\x41\u00e9\U0001F600\101\0"`)).toBe('Aé😀A\0');
    expect(py('"a\\\nb"')).toBe('ab');
    expect(py('"a\\\r\nb"')).toBe('ab');
  });

  it('keeps an unknown escape verbatim, as Python does', () => {
    expect(py(String.raw`"\d+"`)).toBe('\\d+');
  });

  it('leaves escapes alone in raw strings, while a backslash still shields a quote', () => {
    expect(py(String.raw`r'\n'`)).toBe('\\n');
    expect(py(String.raw`R"a\"b"`)).toBe('a\\"b');
    expect(py(`u'x'`)).toBe('x');
  });

  it('normalises CRLF inside triple-quoted strings to LF', () => {
    expect(py('"""a\r\nb"""')).toBe('a\nb');
  });

  it('concatenates adjacent strings, across lines only inside brackets', () => {
    expect(py(`'a' "b" r'\\n'`)).toBe('ab\\n');
    expect(py(`("a"\n "b")`)).toBe('ab');
    expect(parsePythonLiteral('"a"\n"b"')).toEqual({ value: 'a', end: 3 });
  });

  it('reads integers with separators and radix prefixes', () => {
    expect(py('[0, 1_000, 0x1F, 0o17, 0b101, 0X_ff, 00]')).toEqual([0, 1000, 31, 15, 5, 255, 0]);
  });

  it('reads floats', () => {
    expect(py('[1.5, .5, 1., 1e3, 1.5E-3, 1_0.0_1, 007.5, 1.e2]')).toEqual([
      1.5, 0.5, 1, 1000, 0.0015, 10.01, 7.5, 100,
    ]);
  });

  it('applies a unary sign to numbers, keeping Python zero semantics', () => {
    expect(py('[-5, +5, - 3, --2, -1.5]')).toEqual([-5, 5, -3, 2, -1.5]);
    expect(Object.is(py('-0'), 0)).toBe(true);
    expect(Object.is(py('-0.0'), -0)).toBe(true);
  });

  it('stops right after the literal and reports where', () => {
    const text = 'CONFIG = {"a": 1}  # comment';
    expect(parsePythonLiteral(text, 8)).toEqual({ value: { a: 1 }, end: 17 });
  });

  it('stores a __proto__ key as data without touching any prototype', () => {
    const value = py('{"__proto__": {"polluted": True}}') as Record<string, unknown>;
    expect(Object.getPrototypeOf(value)).toBeNull();
    expect(Object.keys(value)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('accepts nesting up to the depth cap', () => {
    const depth = MAX_LITERAL_DEPTH;
    expect(py('['.repeat(depth) + ']'.repeat(depth))).toBeDefined();
  });

  it.each([
    ['f-string', 'f"{x}"', 'f-strings are code'],
    ['upper-case f-string', "F'x'", 'f-strings are code'],
    ['raw f-string', "rf'x'", 'f-strings are code'],
    ['t-string', "t'x'", 't-strings are code'],
    ['bytes', "b'x'", 'bytes literals'],
    ['set', '{1, 2}', 'sets are not supported'],
    ['one-element set', '{"a"}', 'sets are not supported'],
    ['call', 'make()', 'calls are not literals (found make(...))'],
    ['name', '[os]', 'names are not literals (found os)'],
    ['non-string key', '{1: "a"}', 'dict keys must be strings'],
    ['duplicate key', '{"a": 1, \'a\': 2}', 'duplicate key "a"'],
    ['dict unpacking', '{**base}', 'unpacking'],
    ['list unpacking', '[*items]', 'unpacking'],
    ['sign on a name', '-True', 'unary minus and plus apply only to numbers'],
    ['complex number', '1j', 'complex numbers'],
    ['leading zero', '01', 'leading zeros'],
    ['integer beyond 2^53', '9007199254740993', 'beyond ±2^53-1'],
    ['float overflow', '1e400', 'out of range'],
    ['named escape', '"\\N{DASH}"', '\\N{...} escapes'],
    ['truncated hex escape', '"\\x4"', 'truncated \\xNN escape'],
    ['code point beyond U+10FFFF', '"\\U00110000"', 'beyond U+10FFFF'],
    ['newline in a single-quoted string', '"a\nb"', 'unterminated string'],
    ['unterminated string', "'abc", 'unterminated string'],
    ['missing comma', '[1 2]', 'expected "," or "]"'],
    ['missing colon', '{"a", "b": 1}', 'sets are not supported'],
    ['empty input', '   ', 'end of the input'],
    ['lambda', 'lambda: 1', 'names are not literals'],
  ])('refuses a %s', (_label, text, why) => {
    expect(refusal(() => parsePythonLiteral(text)).message).toContain(why);
  });

  it('refuses nesting deeper than the cap as unsafe content', () => {
    const bomb = '['.repeat(MAX_LITERAL_DEPTH + 1) + ']'.repeat(MAX_LITERAL_DEPTH + 1);
    const error = refusal(() => parsePythonLiteral(bomb), 'PARSE_UNSAFE_CONTENT');
    expect(error.message).toContain(`deeper than ${MAX_LITERAL_DEPTH}`);
    refusal(() => parsePythonLiteral('('.repeat(10_000)), 'PARSE_UNSAFE_CONTENT');
  });

  it('refuses a literal longer than the length cap', () => {
    const long = `"${'a'.repeat(MAX_LITERAL_LENGTH)}"`;
    expect(refusal(() => parsePythonLiteral(long)).message).toContain('longer than');
  });

  it('names the constant, the source, the line and the column in its message', () => {
    const text = 'CONFIG = {\n    "a": make(),\n}';
    const error = refusal(() => parsePythonLiteral(text, 8, { source: 'tool.py', what: 'CONFIG' }));
    expect(error.message).toBe(
      'Cannot parse CONFIG in tool.py: calls are not literals (found make(...)) at line 2 column 10',
    );
  });

  it('does not read past the given end', () => {
    expect(refusal(() => parsePythonLiteral('[1,\n2]', 0, { end: 3 })).message).toContain(
      'end of the input',
    );
  });
});

describe('parseJsLiteral()', () => {
  it('reads objects with quoted, identifier, keyword and numeric keys', () => {
    expect(js(`{"a": 1, 'b': 2, c: 3, $d_1: 4, default: 5, 1: 6, 0x10: 7, 1.50: 8}`)).toEqual({
      a: 1,
      b: 2,
      c: 3,
      $d_1: 4,
      default: 5,
      '1': 6,
      '16': 7,
      '1.5': 8,
    });
  });

  it('reads arrays, nested, with trailing commas', () => {
    expect(js('[1, [2, {a: [],},], {},]')).toEqual([1, [2, { a: [] }], {}]);
  });

  it('reads true, false and null', () => {
    expect(js('[true, false, null]')).toEqual([true, false, null]);
  });

  it('decodes string escapes', () => {
    expect(js(String.raw`"\n\t\r\b\f\v\0\\\'\"\q"`)).toBe('\n\t\r\b\f\v\0\\\'"q');
    expect(js(String.raw`'\x41\u0041\u{1F600}'`)).toBe('AA😀');
    expect(js("'a\\\nb'")).toBe('ab');
  });

  it('reads template literals without substitutions, normalising CRLF', () => {
    expect(js('`line 1\nline 2`')).toBe('line 1\nline 2');
    expect(js('`a\r\nb`')).toBe('a\nb');
    expect(js('`cost: $5 \\${x} \\``')).toBe('cost: $5 ${x} `');
  });

  it('reads numbers in every notation', () => {
    expect(js('[0, 0xFF, 0o17, 0b11, 1e3, 1.5e-3, .5, 5., 1_000_000, -1, +1, - 2.5]')).toEqual([
      0, 255, 15, 3, 1000, 0.0015, 0.5, 5, 1000000, -1, 1, -2.5,
    ]);
  });

  it('skips line and block comments', () => {
    expect(js('/* lead */ { // one\n a: 1, /* two */ b: 2 }')).toEqual({ a: 1, b: 2 });
  });

  it('tolerates a trailing as const and satisfies T', () => {
    expect(parseJsLiteral('{a: 1} as const;')).toEqual({ value: { a: 1 }, end: 15 });
    const text = '{a: [1]} as const satisfies Record<string, readonly number[]>;';
    expect(parseJsLiteral(text)).toEqual({ value: { a: [1] }, end: text.length - 1 });
    expect(parseJsLiteral('[1] satisfies X\nfoo()').end).toBe(15);
  });

  it('leaves an as on the next line to the caller, as TypeScript does', () => {
    expect(parseJsLiteral('{}\nas const').end).toBe(2);
  });

  it('stores a __proto__ key as data', () => {
    const value = js('{__proto__: {polluted: true}}') as Record<string, unknown>;
    expect(Object.getPrototypeOf(value)).toBeNull();
    expect(Object.keys(value)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it.each([
    ['identifier', 'undefined', 'names are not literals (found undefined)'],
    ['NaN', 'NaN', 'names are not literals'],
    ['call', 'build()', 'calls are not literals (found build(...))'],
    ['constructor call', 'new Date()', 'new expressions are code'],
    ['array spread', '[...base]', 'spread (...)'],
    ['object spread', '{...base}', 'spread (...)'],
    ['computed key', '{[key]: 1}', 'computed keys'],
    ['shorthand property', '{a}', 'shorthand properties'],
    ['method', '{a() { return 1 }}', 'methods and accessors'],
    ['getter', '{get a() { return 1 }}', 'methods and accessors'],
    ['arrow function', '() => 1', 'expected a value, found "("'],
    ['function', 'function () {}', 'function expressions are code'],
    ['dynamic import', 'import("x")', 'import expressions are code'],
    ['substitution', '`a${b}`', 'template substitutions'],
    ['tagged template', 'String.raw`x`', 'names are not literals'],
    ['duplicate key', `{a: 1, 'a': 2}`, 'duplicate key "a"'],
    ['array hole', '[1,,2]', 'array holes'],
    ['legacy octal', '017', 'invalid number'],
    ['leading zero', '08', 'invalid number'],
    ['BigInt', '10n', 'BigInt'],
    ['octal escape', '"\\1"', 'strict-mode'],
    ['type assertion', '{} as Foo', 'only "as const"'],
    ['satisfies without a type', '{} satisfies', 'expected a type after "satisfies"'],
    ['unterminated comment', '{ /* a: 1 }', 'unterminated comment'],
    ['unterminated template', '`abc', 'unterminated template'],
    ['newline in a string', '"a\nb"', 'unterminated string'],
    ['invalid code point escape', '"\\u{110000}"', 'beyond U+10FFFF'],
    ['integer beyond 2^53', '[9007199254740993]', 'beyond ±2^53-1'],
  ])('refuses a %s', (_label, text, why) => {
    expect(refusal(() => parseJsLiteral(text)).message).toContain(why);
  });

  it('refuses nesting deeper than the cap as unsafe content', () => {
    const bomb = '{"a":'.repeat(MAX_LITERAL_DEPTH + 1) + '1' + '}'.repeat(MAX_LITERAL_DEPTH + 1);
    refusal(() => parseJsLiteral(bomb), 'PARSE_UNSAFE_CONTENT');
    expect(js('['.repeat(MAX_LITERAL_DEPTH) + ']'.repeat(MAX_LITERAL_DEPTH))).toBeDefined();
  });
});

// ---- Property: JSON-like values printed in either dialect parse back unchanged ----

const jsonLike: fc.Arbitrary<LiteralValue> = fc.letrec<{ value: LiteralValue }>((tie) => ({
  value: fc.oneof(
    { maxDepth: 4, depthSize: 'small' },
    fc.constant(null),
    fc.boolean(),
    fc.maxSafeInteger(),
    fc.double({ noNaN: true, noDefaultInfinity: true }).filter((n) => !Object.is(n, -0)),
    fc.string({ unit: 'binary', maxLength: 12 }),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.string({ unit: 'binary', maxLength: 6 }), tie('value'), { maxKeys: 4 }),
  ),
})).value;

/** Printing choices: quote style, trailing commas, comments and line breaks, tuples. */
interface Style {
  readonly quote: string;
  readonly trailingComma: boolean;
  readonly airy: boolean;
  readonly tuples: boolean;
  readonly split: boolean;
}

const styles: fc.Arbitrary<Style> = fc.record({
  quote: fc.constantFrom('"', "'", '`'),
  trailingComma: fc.boolean(),
  airy: fc.boolean(),
  tuples: fc.boolean(),
  split: fc.boolean(),
});

function quoted(s: string, quote: string): string {
  let out = quote;
  for (const ch of s) {
    const code = ch.codePointAt(0) ?? 0;
    if (ch === '\\' || ch === quote || (quote === '`' && ch === '$')) out += `\\${ch}`;
    else if (code < 0x20 || code === 0x7f) out += `\\u${code.toString(16).padStart(4, '0')}`;
    else out += ch;
  }
  return out + quote;
}

function printNumber(n: number): string {
  const text = Number.isInteger(n) && !Number.isSafeInteger(n) ? n.toExponential() : String(n);
  return text.replace('e+', 'e');
}

function printPython(value: LiteralValue, style: Style): string {
  const q = style.quote === '`' ? "'" : style.quote;
  const sep = style.airy ? ',  # note\n ' : ', ';
  const tail = style.trailingComma ? ',' : '';
  if (value === null) return 'None';
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (typeof value === 'number') return printNumber(value);
  if (typeof value === 'string') {
    const half = Math.floor(value.length / 2);
    if (!style.split || half === 0) return quoted(value, q);
    return `${quoted(value.slice(0, half), q)} ${quoted(value.slice(half), q)}`;
  }
  if (Array.isArray(value)) {
    const items = value.map((v) => printPython(v, style));
    if (style.tuples) return items.length === 1 ? `(${items[0]},)` : `(${items.join(sep)})`;
    return `[${items.join(sep)}${items.length > 0 ? tail : ''}]`;
  }
  const entries = Object.entries(value).map(
    ([k, v]) => `${quoted(k, q)}: ${printPython(v, style)}`,
  );
  return `{${entries.join(sep)}${entries.length > 0 ? tail : ''}}`;
}

function printJs(value: LiteralValue, style: Style): string {
  const sep = style.airy ? ', // note\n /* more */ ' : ', ';
  const tail = style.trailingComma ? ',' : '';
  if (value === null || typeof value === 'boolean') return String(value);
  if (typeof value === 'number') return printNumber(value);
  if (typeof value === 'string') return quoted(value, style.quote);
  if (Array.isArray(value)) {
    const items = value.map((v) => printJs(v, style));
    return `[${items.join(sep)}${items.length > 0 ? tail : ''}]`;
  }
  const entries = Object.entries(value).map(([k, v]) => {
    const key = /^[A-Za-z_$][\w$]*$/.test(k)
      ? k
      : quoted(k, style.quote === '`' ? '"' : style.quote);
    return `${key}: ${printJs(v, style)}`;
  });
  return `{${entries.join(sep)}${entries.length > 0 ? tail : ''}}`;
}

describe('literal round trip', () => {
  it('parses JSON-like values printed as Python literals back to the same value', () => {
    fc.assert(
      fc.property(jsonLike, styles, (value, style) => {
        const text = printPython(value, style);
        const result = parsePythonLiteral(text);
        expect(result.value).toEqual(value);
        expect(result.end).toBe(text.length);
      }),
      { numRuns: 300 },
    );
  });

  it('parses JSON-like values printed as JavaScript literals back to the same value', () => {
    fc.assert(
      fc.property(jsonLike, styles, (value, style) => {
        const text = printJs(value, style);
        const result = parseJsLiteral(text);
        expect(result.value).toEqual(value);
        expect(result.end).toBe(text.length);
      }),
      { numRuns: 300 },
    );
  });
});

describe('identifier characters', () => {
  // The ASCII fast path must give the Unicode properties' answers.
  const start = /^[\p{ID_Start}_$]$/u;
  const part = /^[\p{ID_Continue}$\u200c\u200d]$/u;

  it('answers every ASCII character as ID_Start and ID_Continue do', () => {
    for (let code = 0; code < 0x80; code++) {
      const c = String.fromCharCode(code);
      expect([c, isIdentifierStart(c)]).toEqual([c, start.test(c)]);
      expect([c, isIdentifierPart(c)]).toEqual([c, part.test(c)]);
    }
  });

  it('answers any character as the Unicode properties do', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ maxLength: 1, unit: 'binary' }),
          fc.constantFrom('', 'é', 'ß', '\u0660', '\u200c', '\u{1D400}'),
        ),
        (c) => {
          expect(isIdentifierStart(c)).toBe(c !== '' && start.test(c));
          expect(isIdentifierPart(c)).toBe(c !== '' && part.test(c));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('refuses the empty string', () => {
    expect(isIdentifierStart('')).toBe(false);
    expect(isIdentifierPart('')).toBe(false);
  });
});
