import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isRyeError } from '../../src/errors/index.js';
import type { ErrorCode } from '../../src/errors/index.js';
import {
  canonicalJson,
  compareCodePoints,
  formatPythonFloat,
} from '../../src/integrity/canonical-json.js';
import {
  MAX_JSON_DEPTH,
  MAX_JSON_INT_DIGITS,
  jsonNodeToValue,
  parseJsonAst,
  tryParseJsonAst,
} from '../../src/integrity/json-ast.js';
import { readJsonSignature, writeJsonSignature } from '../../src/integrity/json-signature.js';
import { jsString, jsonObjectDocument } from '../helpers/json-texts.js';

// Against CPython itself: canonical-json-python.test.ts (it starts python3).

const FIELD = '_signature';
const PAYLOAD =
  'rye:signed:2026-02-11T00:00:00Z:' +
  'a'.repeat(64) +
  ':' +
  'A'.repeat(86) +
  '==:0123456789abcdef';

const canon = (text: string): string => canonicalJson(parseJsonAst(text, 'test.json'));
const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

function codeOf(fn: () => unknown): ErrorCode | 'no error' {
  try {
    fn();
  } catch (error) {
    if (isRyeError(error)) return error.code;
    throw error;
  }
  return 'no error';
}

describe('canonicalJson() numbers', () => {
  it.each([
    ['1e16', '1e+16'],
    ['1e-5', '1e-05'],
    ['1.5E300', '1.5e+300'],
    ['5e-324', '5e-324'],
    ['1e22', '1e+22'],
    ['123456789012345678901234567890.0', '1.2345678901234568e+29'],
    ['-1.5e-7', '-1.5e-07'],
  ])("matches Python's json.dumps for floats in exponent form: %s → %s", (lexeme, expected) => {
    expect(canon(lexeme)).toBe(expected);
  });

  it.each([
    ['0.1', '0.1'],
    ['1e15', '1000000000000000.0'],
    ['9999999999999998.0', '9999999999999998.0'],
    ['1e-4', '0.0001'],
    ['1.0', '1.0'],
    ['1E+2', '100.0'],
    ['-0.0', '-0.0'],
    ['0e0', '0.0'],
    ['0.30000000000000004', '0.30000000000000004'],
  ])("matches Python's json.dumps for floats in fixed form: %s → %s", (lexeme, expected) => {
    expect(canon(lexeme)).toBe(expected);
  });

  it('prints overflowing floats as Infinity and underflowing ones as zero, like Python', () => {
    expect(canon('[1e400,-1e400,1e-400,-1e-400]')).toBe('[Infinity,-Infinity,0.0,-0.0]');
  });

  it('prints integers as their exact digits, of any length, and -0 as 0', () => {
    const big = '-123456789012345678901234567890123456789';
    expect(canon(`[${big},-0,0,9007199254740993]`)).toBe(`[${big},0,0,9007199254740993]`);
  });

  it('formatPythonFloat() prints NaN and infinities as Python json.dumps does', () => {
    expect([NaN, Infinity, -Infinity].map(formatPythonFloat)).toEqual([
      'NaN',
      'Infinity',
      '-Infinity',
    ]);
  });
});

describe('canonicalJson() strings and keys', () => {
  it('sorts keys by code point as Python does, not by UTF-16 unit', () => {
    expect(canon('{"😀":2,"\uffff":1,"a":0}')).toBe('{"a":0,"\\uffff":1,"\\ud83d\\ude00":2}');
  });

  it('orders a lone surrogate key by its own code point', () => {
    expect(canon('{"\\ud83d\\ude00":1,"\\ue000":2,"\\ud800":3}')).toBe(
      '{"\\ud800":3,"\\ue000":2,"\\ud83d\\ude00":1}',
    );
  });

  it('compareCodePoints() agrees with code point order on surrogate edge cases', () => {
    const byCodePoints = (a: string, b: string): number => {
      const x = Array.from(a, (c) => c.codePointAt(0) ?? 0);
      const y = Array.from(b, (c) => c.codePointAt(0) ?? 0);
      for (let i = 0; i < Math.min(x.length, y.length); i++) {
        if (x[i] !== y[i]) return (x[i] ?? 0) - (y[i] ?? 0);
      }
      return x.length - y.length;
    };
    fc.assert(
      fc.property(jsString, jsString, (a, b) => {
        expect(Math.sign(compareCodePoints(a, b))).toBe(Math.sign(byCodePoints(a, b)));
      }),
    );
    expect(compareCodePoints('\ud83dx', '\ud83d\ude00')).toBeLessThan(0);
    expect(compareCodePoints('\ud83d\uffff', '\ud83d\ude00')).toBeLessThan(0);
    expect(compareCodePoints('\ud83d\ude00', '\ud83d\uffff')).toBeGreaterThan(0);
  });

  it('escapes everything outside printable ASCII exactly as ensure_ascii does', () => {
    expect(canon('"\\"\\\\\\/\\b\\f\\n\\r\\t\\u0001\u007fé\u2028😀"')).toBe(
      '"\\"\\\\/\\b\\f\\n\\r\\t\\u0001\\u007f\\u00e9\\u2028\\ud83d\\ude00"',
    );
  });

  it('keeps an escaped lone surrogate and re-escapes it', () => {
    expect(canon('"\\ud800x\\udc00"')).toBe('"\\ud800x\\udc00"');
  });

  it('joins an escaped surrogate pair into one character', () => {
    const node = parseJsonAst('"\\ud83d\\ude00"', 't');
    expect(node).toEqual({ type: 'string', value: '😀' });
  });
});

describe('parseJsonAst() refusals', () => {
  const refused = (text: string): ErrorCode | 'no error' =>
    codeOf(() => parseJsonAst(text, 'x.json'));

  it.each([['{"a":1,"a":2}'], ['{"a":1,"\\u0061":2}'], ['[{"k":{"x":1,"y":2,"x":3}}]']])(
    'refuses duplicate keys as unsafe: %s',
    (text) => {
      expect(refused(text)).toBe('PARSE_UNSAFE_CONTENT');
    },
  );

  it(`accepts ${MAX_JSON_DEPTH} levels of nesting and refuses one more as a depth bomb`, () => {
    const nest = (n: number): string => '['.repeat(n) + ']'.repeat(n);
    expect(refused(nest(MAX_JSON_DEPTH))).toBe('no error');
    expect(refused(nest(MAX_JSON_DEPTH + 1))).toBe('PARSE_UNSAFE_CONTENT');
    expect(refused('{"a":'.repeat(MAX_JSON_DEPTH + 1))).toBe('PARSE_UNSAFE_CONTENT');
  });

  it('refuses a million-deep bomb without exhausting the stack', () => {
    expect(refused('['.repeat(1_000_000))).toBe('PARSE_UNSAFE_CONTENT');
  });

  it(`refuses integers longer than Python's ${MAX_JSON_INT_DIGITS}-digit limit`, () => {
    expect(refused(`-${'9'.repeat(MAX_JSON_INT_DIGITS)}`)).toBe('no error');
    expect(refused('9'.repeat(MAX_JSON_INT_DIGITS + 1))).toBe('PARSE_UNSAFE_CONTENT');
  });

  it.each([
    ['[1,2,]'],
    ['{"a":1,}'],
    ['[1 // c\n]'],
    ['/* c */ 1'],
    ['NaN'],
    ['Infinity'],
    ['[-Infinity]'],
    ["{'a':1}"],
    ['\ufeff{}'],
    ['"tab\there"'],
    ['"\ud800"'],
    ['01'],
    ['1.'],
    ['.5'],
    ['+1'],
    ['1e'],
    ['"\\x41"'],
    ['"\\u12"'],
    [''],
    ['tru'],
    ['{} {}'],
    ['{"a" 1}'],
    ['[1 2]'],
    ['"open'],
  ])('refuses malformed JSON with METADATA_PARSE_FAILED: %j', (text) => {
    expect(refused(text)).toBe('METADATA_PARSE_FAILED');
  });

  it('says where the error is, in the house message style', () => {
    expect(() => parseJsonAst('{\n  "a": [1,\n  ]\n}', 'tools/x.json')).toThrow(
      'Cannot parse JSON in tools/x.json: trailing comma at line 3 column 3',
    );
    expect(() => parseJsonAst('{"é😀":1,"é😀":2}', 'y.json')).toThrow(
      'Cannot parse JSON in y.json: duplicate key "é😀" at line 1 column 9',
    );
  });

  it('tryParseJsonAst() returns undefined instead of throwing', () => {
    expect(tryParseJsonAst('[1,]', 'x')).toBeUndefined();
    expect(tryParseJsonAst('[1]', 'x')).toEqual({
      type: 'array',
      items: [{ type: 'number', lexeme: '1', kind: 'int' }],
    });
  });
});

describe('parseJsonAst() and __proto__', () => {
  const text = '{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}';

  it('keeps __proto__ keys as data in the hashed form', () => {
    expect(canon(text)).toBe(text);
  });

  it('jsonNodeToValue() makes __proto__ an own property and pollutes no prototype', () => {
    const value = jsonNodeToValue(parseJsonAst(text, 't')) as Record<string, unknown>;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.keys(value)).toEqual(['__proto__', 'constructor']);
    expect(Object.getOwnPropertyDescriptor(value, '__proto__')?.value).toEqual({ polluted: true });
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });
});

describe('readJsonSignature() and writeJsonSignature()', () => {
  const doc = '{"name":"x","version":1.0,"n":1E+2,"nested":{"_signature":"data"},"list":[],"o":{}}';

  it('reads no payload from an unsigned document and hashes it without the field', () => {
    const read = readJsonSignature(doc, FIELD, 'x.json');
    expect(read.payload).toBeNull();
    expect(read.hashedText).toBe(
      '{"list":[],"n":100.0,"name":"x","nested":{"_signature":"data"},"o":{},"version":1.0}',
    );
  });

  it('writes the field first, keeps key order and lexemes, indents by 2 and ends with LF', () => {
    expect(writeJsonSignature(doc, FIELD, PAYLOAD, 'x.json')).toBe(
      [
        '{',
        `  "_signature": "${PAYLOAD}",`,
        '  "name": "x",',
        '  "version": 1.0,',
        '  "n": 1E+2,',
        '  "nested": {',
        '    "_signature": "data"',
        '  },',
        '  "list": [],',
        '  "o": {}',
        '}',
        '',
      ].join('\n'),
    );
  });

  it('round-trips insert, replace and remove without changing the content hash', () => {
    fc.assert(
      fc.property(jsonObjectDocument, fc.string(), fc.string(), (text, first, second) => {
        const before = codeOf(() => readJsonSignature(text, FIELD, 't'));
        if (before !== 'no error') {
          // A generated "_signature" key holding a non-string value.
          expect(before).toBe('INTEGRITY_MALFORMED_SIGNATURE');
          return;
        }
        const hash = sha256(readJsonSignature(text, FIELD, 't').hashedText);
        const inserted = writeJsonSignature(text, FIELD, first, 't');
        const replaced = writeJsonSignature(inserted, FIELD, second, 't');
        const removed = writeJsonSignature(replaced, FIELD, null, 't');
        for (const [signed, payload] of [
          [inserted, first],
          [replaced, second],
          [removed, null],
        ] as const) {
          const read = readJsonSignature(signed, FIELD, 't');
          expect(read.payload).toBe(payload);
          expect(sha256(read.hashedText)).toBe(hash);
          expect(read.root.entries.filter((e) => e.key === FIELD)).toHaveLength(
            payload === null ? 0 : 1,
          );
          expect(writeJsonSignature(signed, FIELD, payload, 't')).toBe(signed);
        }
        expect(inserted.startsWith(`{\n  ${JSON.stringify(FIELD)}: `)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('escapes control, bidi and lone-surrogate characters in the written file', () => {
    const text = '{"k\\u202e":"a\\u0000b\\u009f\\ud800\\u2066é😀"}';
    const written = writeJsonSignature(text, FIELD, null, 't');
    expect(written).toBe('{\n  "k\\u202e": "a\\u0000b\\u009f\\ud800\\u2066é😀"\n}\n');
    expect(readJsonSignature(written, FIELD, 't').hashedText).toBe(
      readJsonSignature(text, FIELD, 't').hashedText,
    );
  });

  it.each([['[{"_signature":"x"}]'], ['"rye:signed:x"'], ['1'], ['null']])(
    'refuses a non-object top level: %s',
    (text) => {
      expect(codeOf(() => readJsonSignature(text, FIELD, 't'))).toBe('METADATA_PARSE_FAILED');
      expect(codeOf(() => writeJsonSignature(text, FIELD, PAYLOAD, 't'))).toBe(
        'METADATA_PARSE_FAILED',
      );
    },
  );

  it.each([['{"_signature":1}'], ['{"_signature":null}'], ['{"_signature":["rye:signed:x"]}']])(
    'refuses a signature field that is not a string: %s',
    (text) => {
      expect(codeOf(() => readJsonSignature(text, FIELD, 't'))).toBe(
        'INTEGRITY_MALFORMED_SIGNATURE',
      );
    },
  );

  it('refuses a document with two signature fields as a duplicate key', () => {
    const text = `{"_signature":"${PAYLOAD}","a":1,"_signature":"${PAYLOAD}"}`;
    expect(codeOf(() => readJsonSignature(text, FIELD, 't'))).toBe('PARSE_UNSAFE_CONTENT');
  });
});
