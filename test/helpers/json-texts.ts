import fc from 'fast-check';

/**
 * Generated JSON texts for the canonical-JSON suites: every number kind, every
 * escape spelling, astral and lone-surrogate strings, keys whose code-point
 * order differs from UTF-16 order; and mutations that break them.
 */
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
export const jsString = fc.oneof(
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

export const jsonDocument = fc.tuple(ws, jsonTexts.value, ws).map(([a, v, b]) => `${a}${v}${b}`);
export const jsonObjectDocument = jsonTexts.object as fc.Arbitrary<string>;

/** Delete or insert one character, at a code-point boundary so the text stays valid Unicode. */
export const mutation = fc.tuple(
  fc.nat(),
  fc.option(
    fc.constantFrom(',', ']', '}', '[', '{', '"', '\\', 'e', '.', '-', '0', ':', '/', 'x'),
    {
      nil: undefined,
    },
  ),
);
export function mutate(text: string, [at, insert]: [number, string | undefined]): string {
  const chars = Array.from(text);
  const index = chars.length === 0 ? 0 : at % chars.length;
  if (insert === undefined) chars.splice(index, 1);
  else chars.splice(index, 0, insert);
  return chars.join('');
}
