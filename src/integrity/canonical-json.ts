import type { JsonNode, JsonNumberNode } from './json-ast.js';

/**
 * The canonical text of a JSON document, byte for byte what Python 3 prints with
 * `json.dumps(json.loads(text), sort_keys=True, separators=(",", ":"),
 * ensure_ascii=True)`, so hashes agree with the Python Rye implementation:
 * - keys sorted by Unicode code point (Python `str` order, not UTF-16 order);
 * - pure ASCII: `\"` `\\` `\n` `\r` `\t` `\b` `\f`, every other character
 *   outside 0x20–0x7E as lowercase `\u00XX`, astral ones as surrogate pairs;
 * - ints as their exact digits (`-0` → `0`), floats as Python `repr(float)`,
 *   overflowing floats (`1e400`) as `Infinity` / `-Infinity` like Python.
 *
 * Pure; throws nothing. Build the node with `parseJsonAst`, never `JSON.parse`,
 * which loses number lexemes.
 */
export function canonicalJson(node: JsonNode): string {
  switch (node.type) {
    case 'object': {
      const entries = [...node.entries].sort((a, b) => compareCodePoints(a.key, b.key));
      const members = entries.map((e) => `${asciiJsonString(e.key)}:${canonicalJson(e.value)}`);
      return `{${members.join(',')}}`;
    }
    case 'array':
      return `[${node.items.map(canonicalJson).join(',')}]`;
    case 'string':
      return asciiJsonString(node.value);
    case 'number':
      return canonicalNumber(node);
    case 'boolean':
      return node.value ? 'true' : 'false';
    case 'null':
      return 'null';
  }
}

function canonicalNumber(node: JsonNumberNode): string {
  if (node.kind === 'float') return formatPythonFloat(Number(node.lexeme));
  // The grammar forbids leading zeros, so the lexeme is already Python's digits
  // except for `-0`, which Python's int reads as 0.
  return /^-0+$/.test(node.lexeme) ? '0' : node.lexeme;
}

/**
 * Python's `repr(float)` as `json.dumps` prints it: the shortest digits that
 * round-trip, fixed notation when the decimal exponent is in [-4, 16) with `.0`
 * on integral values, else `d.ddde+XX` (at least two exponent digits);
 * `Infinity`, `-Infinity`, `NaN` for the non-finite values. Pure.
 */
export function formatPythonFloat(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return 'Infinity';
  if (value === -Infinity) return '-Infinity';
  if (value === 0) return Object.is(value, -0) ? '-0.0' : '0.0';
  const sign = value < 0 ? '-' : '';
  // Number#toString yields the shortest round-trip digits with the nearest-then-
  // even tie rule (ECMA-262 Number::toString), the same digits as Python's repr.
  // A finite non-zero number always prints in this form.
  const match = /^(\d+)(?:\.(\d+))?(?:e([-+]\d+))?$/.exec(String(Math.abs(value)));
  const [, whole = '', fraction = '', exponent = '0'] = match as RegExpExecArray;
  const allDigits = whole + fraction;
  const significant = allDigits.replace(/^0+/, '');
  // Digits before the decimal point, once the leading zeros are gone.
  const pointAt = whole.length + Number(exponent) - (allDigits.length - significant.length);
  const digits = significant.replace(/0+$/, '');
  const sciExponent = pointAt - 1;
  if (sciExponent < -4 || sciExponent >= 16) {
    const mantissa = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const expSign = sciExponent < 0 ? '-' : '+';
    return `${sign}${mantissa}e${expSign}${String(Math.abs(sciExponent)).padStart(2, '0')}`;
  }
  if (pointAt <= 0) return `${sign}0.${'0'.repeat(-pointAt)}${digits}`;
  if (digits.length <= pointAt) return `${sign}${digits.padEnd(pointAt, '0')}.0`;
  return `${sign}${digits.slice(0, pointAt)}.${digits.slice(pointAt)}`;
}

/**
 * Order two strings by Unicode code point, as Python compares `str`; lone
 * surrogates count as their own code point. Differs from `<` on UTF-16 units
 * when an astral character meets one in U+E000–U+FFFF.
 */
export function compareCodePoints(a: string, b: string): number {
  const shorter = Math.min(a.length, b.length);
  let i = 0;
  while (i < shorter && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  if (i === shorter) return a.length - b.length;
  // A shared high surrogate just before the difference belongs to the code point
  // that differs when either side continues it with a low surrogate.
  if (i > 0 && isHighSurrogate(a.charCodeAt(i - 1)) && (isLow(a, i) || isLow(b, i))) i--;
  // i < shorter: both strings have a code unit there.
  return (a.codePointAt(i) as number) - (b.codePointAt(i) as number);
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLow(text: string, index: number): boolean {
  const code = text.charCodeAt(index);
  return code >= 0xdc00 && code <= 0xdfff;
}

/** The two-character JSON escapes, shared by the canonical and pretty writers. */
export const SHORT_ESCAPES: Readonly<Record<string, string>> = {
  '"': '\\"',
  '\\': '\\\\',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\b': '\\b',
  '\f': '\\f',
};

/** Python `ensure_ascii`: each UTF-16 unit outside 0x20–0x7E escaped on its own. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const NON_ASCII_OR_SPECIAL = /["\\\u0000-\u001f\u007f-\uffff]/g;

function asciiJsonString(value: string): string {
  const body = value.replace(
    NON_ASCII_OR_SPECIAL,
    (ch) => SHORT_ESCAPES[ch] ?? `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  return `"${body}"`;
}
