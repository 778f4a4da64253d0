import { spawnSync } from 'node:child_process';
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

// ---------------------------------------------------------------------------
// Generated JSON texts: every number kind, every escape spelling, astral and
// lone-surrogate strings, keys whose code-point order differs from UTF-16 order.

const ws = fc.constantFrom('', '', ' ', '\n  ', '\t', '\r\n');

const intLexeme = fc.oneof(
  fc.integer().map(String),
  fc.bigInt({ min: -(10n ** 60n), max: 10n ** 60n }).map(String),
  fc.constantFrom('0', '-0', '9007199254740993', '-9007199254740993'),
);

/** Digits of 2^-1075, exactly halfway between 0 and the smallest subnormal. */
const TIE_DIGITS =
  '4703282292062327208828439643411068618252990130716238221279284125033775363510437593264991818081799618989828234772285886546332835517796989819938739800539093906315035659515570226392290858392449105184435931802849936536152500319370457678249219365623669863658480757001585769269903706311928279558551332927834338409351978015531246597263579574622766465272827220056374006485499977096599470454020828166226237857393450736339007967761930577506740176324673600968951340535537458516661134223766678604162159680461914467291840300530057530849048765391711386591646239524912623653881879636239373280423891018672348497668235089863388587925628302755995657524455507255189313690836254779186948667994968324049705821028513185451396213837722826145437693412532098591327667236328125';

const SPECIAL_FLOATS = [
  '1e16',
  '1e-5',
  '0.1',
  '-0.0',
  '1e400',
  '-1e400',
  '1e-400',
  '-1e-400',
  '1E+2',
  '1.0',
  '0e0',
  '1e15',
  '1e-4',
  '9999999999999998.0',
  '5e-324',
  '2.5e-324',
  '1.7976931348623157e308',
  '123456789012345678901234567890.123456789e-10',
  '0.30000000000000004',
  '1e22',
  '1e21',
  '100.0',
  '1234567890123456.7',
  '12345678901234567.0',
  '-1.5e-7',
  '0.000123',
  // Correct rounding past 20 significant digits: halfway cases and the subnormal edge.
  '9007199254740993.0000000000000000000000001',
  '1.7976931348623159e308',
  `2.${TIE_DIGITS}e-324`,
  `2.${TIE_DIGITS}001e-324`,
];

const exponentPart = fc
  .tuple(fc.constantFrom('e', 'E'), fc.constantFrom('', '+', '-'), fc.integer({ min: 0, max: 400 }))
  .map(([e, sign, n]) => `${e}${sign}${n}`);

const floatLexeme = fc.oneof(
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((x) => {
    const s = String(x);
    return /[.e]/.test(s) ? s : `${s}.0`;
  }),
  fc.constantFrom(...SPECIAL_FLOATS),
  fc
    .tuple(
      fc.constantFrom('', '-'),
      fc.oneof(fc.constant('0'), fc.stringMatching(/^[1-9][0-9]{0,30}$/)),
      fc.option(fc.stringMatching(/^[0-9]{1,30}$/), { nil: undefined }),
      fc.option(exponentPart, { nil: undefined }),
    )
    .map(([sign, whole, frac, exp]) => {
      const fraction =
        frac === undefined && exp === undefined ? '.5' : frac === undefined ? '' : `.${frac}`;
      return `${sign}${whole}${fraction}${exp ?? ''}`;
    }),
);

const anyCodeUnit = fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c));
const SPECIAL_STRINGS = [
  '',
  '\uffff',
  '😀',
  '\ue000',
  '\ud800',
  '\udc00x',
  'a\ud83d',
  '\ud83d\ude00\ud800',
  'é',
  '\u0000',
  '\u007f',
  '\u2028',
  '\u202e',
  '__proto__',
  'constructor',
  '_signature',
  'a',
  'A',
  'Z',
  '"\\/',
];
// Few units, so random keys often share a high surrogate then differ.
const surrogateEdgeUnit = fc.constantFrom('\ud83d', '\ude00', '\uffff', '\ue000', 'x', '\ud800');
const jsString = fc.oneof(
  fc.string({ maxLength: 10 }),
  fc.string({ unit: surrogateEdgeUnit, maxLength: 4 }),
  fc.string({ unit: 'binary', maxLength: 10 }),
  fc.string({ unit: anyCodeUnit, maxLength: 10 }),
  fc.constantFrom(...SPECIAL_STRINGS),
);

/** A JSON string literal for `value`, with escape spellings chosen by `seed`. */
function jsonLiteral(value: string, seed: number): string {
  let state = (seed >>> 0) | 1;
  const roll = (n: number): boolean => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) % n === 0;
  };
  const hex = (code: number): string => {
    const digits = code.toString(16).padStart(4, '0');
    return `\\u${roll(2) ? digits : digits.toUpperCase()}`;
  };
  const short: Record<number, string> = { 8: '\\b', 9: '\\t', 10: '\\n', 12: '\\f', 13: '\\r' };
  let out = '"';
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    const next = value.charCodeAt(i + 1);
    const isPair = code >= 0xd800 && code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff;
    if (isPair && roll(2)) {
      out += value.slice(i, i + 2); // a raw astral character
      i++;
    } else if (code === 0x22) out += roll(3) ? '\\u0022' : '\\"';
    else if (code === 0x5c) out += '\\\\';
    else if (code < 0x20 || (code >= 0xd800 && code <= 0xdfff)) {
      out += short[code] !== undefined && roll(2) ? short[code] : hex(code);
    } else if (code === 0x2f && roll(2)) out += '\\/';
    else if (roll(7)) out += hex(code);
    else out += value[i];
  }
  return `${out}"`;
}

const stringLiteral = fc.tuple(jsString, fc.nat()).map(([s, seed]) => jsonLiteral(s, seed));

const jsonTexts = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.oneof(intLexeme, floatLexeme, stringLiteral, fc.constantFrom('true', 'false', 'null')),
    tie('array'),
    tie('object'),
  ),
  array: fc
    .tuple(fc.array(tie('value'), { maxLength: 5 }), ws)
    .map(([items, w]) => `[${w}${items.join(`${w},${w}`)}${w}]`),
  object: fc
    .tuple(
      fc.uniqueArray(fc.tuple(jsString, fc.nat(), tie('value')), {
        selector: ([key]) => key,
        maxLength: 6,
      }),
      ws,
    )
    .map(([members, w]) => {
      const parts = members.map(([key, seed, v]) => `${jsonLiteral(key, seed)}${w}:${w}${v}`);
      return `{${w}${parts.join(`${w},${w}`)}${w}}`;
    }),
}));

const jsonDocument = fc.tuple(ws, jsonTexts.value, ws).map(([a, v, b]) => `${a}${v}${b}`);
const jsonObjectDocument = jsonTexts.object as fc.Arbitrary<string>;

/** Delete or insert one character, at a code-point boundary so the text stays valid Unicode. */
const mutation = fc.tuple(
  fc.nat(),
  fc.option(
    fc.constantFrom(',', ']', '}', '[', '{', '"', '\\', 'e', '.', '-', '0', ':', '/', 'x'),
    {
      nil: undefined,
    },
  ),
);
function mutate(text: string, [at, insert]: [number, string | undefined]): string {
  const chars = Array.from(text);
  const index = chars.length === 0 ? 0 : at % chars.length;
  if (insert === undefined) chars.splice(index, 1);
  else chars.splice(index, 0, insert);
  return chars.join('');
}

// ---------------------------------------------------------------------------
// The oracle: CPython's json module, run once over a batch of documents.

const hasPython = spawnSync('python3', ['--version']).status === 0;
const SKIP_NOTE = hasPython ? '' : ' [SKIPPED: python3 is not on PATH]';

const ORACLE = `
import json, sys
docs = json.loads(sys.stdin.buffer.read().decode("utf-8"))
out = []
drop = sys.argv[1] if len(sys.argv) > 1 else None
for d in docs:
    try:
        obj = json.loads(d)
        if drop is not None:
            obj.pop(drop, None)
        out.append({"ok": json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=True)})
    except Exception as e:
        out.append({"error": type(e).__name__ + ": " + str(e)[:200]})
sys.stdout.write(json.dumps(out))
`;

type OracleResult = { ok: string; error?: undefined } | { ok?: undefined; error: string };

/** Python's canonical text of each document, after `obj.pop(dropField)` when given. */
function pythonCanonical(docs: readonly string[], dropField?: string): OracleResult[] {
  const args = dropField === undefined ? [] : [dropField];
  const run = spawnSync('python3', ['-c', ORACLE, ...args], {
    input: JSON.stringify(docs),
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  if (run.status !== 0) throw new Error(`python3 oracle failed: ${run.stderr}`);
  return JSON.parse(run.stdout) as OracleResult[];
}

type Ours = { ok: string } | { code: ErrorCode };

function ours(doc: string): Ours {
  try {
    return { ok: canon(doc) };
  } catch (error) {
    if (isRyeError(error)) return { code: error.code };
    throw error;
  }
}

interface Disagreement {
  readonly doc: string;
  readonly python: OracleResult | undefined;
  readonly ours: Ours;
}

/** Run the oracle over `docs` and list every document where `agree` says no. */
function disagreementsWithPython(
  docs: readonly string[],
  agree: (python: OracleResult | undefined, ts: Ours) => boolean,
): Disagreement[] {
  const expected = pythonCanonical(docs);
  return docs.flatMap((doc, i) => {
    const python = expected[i];
    const ts = ours(doc);
    return agree(python, ts) ? [] : [{ doc, python, ours: ts }];
  });
}

describe(`canonicalJson() against CPython's json.dumps${SKIP_NOTE}`, () => {
  it.skipIf(!hasPython)('matches Python byte for byte over generated documents', () => {
    const seed = Date.now() % 2 ** 31;
    const docs = fc.sample(jsonDocument, { numRuns: 1500, seed });
    const found = disagreementsWithPython(
      docs,
      (py, ts) => py?.ok !== undefined && 'ok' in ts && ts.ok === py.ok,
    );
    expect(found, `fast-check seed ${seed}`).toEqual([]);
  });

  it.skipIf(!hasPython)('accepts and refuses the same mutated texts as Python', () => {
    const seed = Date.now() % 2 ** 31;
    const samples = fc.sample(fc.tuple(jsonDocument, mutation), { numRuns: 1500, seed });
    const found = disagreementsWithPython(
      samples.map(([doc, m]) => mutate(doc, m)),
      (py, ts) => {
        // A duplicate key before the syntax error is refused first, as unsafe.
        if (py?.ok === undefined) return 'code' in ts;
        // Python keeps the last of duplicate keys; we refuse them on purpose.
        return 'ok' in ts ? ts.ok === py.ok : ts.code === 'PARSE_UNSAFE_CONTENT';
      },
    );
    expect(found, `fast-check seed ${seed}`).toEqual([]);
  });

  it.skipIf(!hasPython)('hashes files signed here exactly as Python hashes them', () => {
    const docs = fc
      .sample(jsonObjectDocument, { numRuns: 500 })
      .filter((d) => codeOf(() => readJsonSignature(d, FIELD, 't')) === 'no error');
    const signed = docs.map((d) => writeJsonSignature(d, FIELD, PAYLOAD, 't'));
    const expected = pythonCanonical(signed, FIELD);
    const mismatches = docs.flatMap((doc, i) => {
      const hashedText = readJsonSignature(doc, FIELD, 't').hashedText;
      return expected[i]?.ok === hashedText
        ? []
        : [{ doc, signed: signed[i], python: expected[i] }];
    });
    expect(mismatches).toEqual([]);
  });
});

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
