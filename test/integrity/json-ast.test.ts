import { describe, expect, it } from 'vitest';
import { isRyeError } from '../../src/errors/index.js';
import type { ErrorCode } from '../../src/errors/index.js';
import { canonicalJson } from '../../src/integrity/canonical-json.js';
import { MAX_JSON_DEPTH, jsonNodeToValue, parseJsonAst } from '../../src/integrity/json-ast.js';

const MB = 1024 * 1024;

/** `part(0) + part(1) + …` until the text reaches `size` characters. */
function grow(part: (i: number) => string, size = MB): string {
  const parts: string[] = [];
  for (let i = 0, length = 0; length < size; i += 1) {
    parts.push(part(i));
    length += parts[i]?.length ?? 0;
  }
  return parts.join('');
}

function refusal(text: string, code: ErrorCode): string {
  try {
    parseJsonAst(text, 'hostile.json');
  } catch (error) {
    expect(isRyeError(error, code), String(error)).toBe(true);
    return (error as Error).message;
  }
  throw new Error(`expected ${code}`);
}

describe('parseJsonAst() on hostile 1 MB texts', () => {
  it('refuses 500,000 nested arrays and objects at the depth cap, before recursing further', () => {
    const arrays = `${'['.repeat(MB / 2)}${']'.repeat(MB / 2)}`;
    expect(refusal(arrays, 'PARSE_UNSAFE_CONTENT')).toContain(
      `deeper than ${MAX_JSON_DEPTH} levels`,
    );
    refusal(`${'{"a":'.repeat(MB / 5)}1${'}'.repeat(MB / 5)}`, 'PARSE_UNSAFE_CONTENT');
  });

  it('refuses a duplicate key after 60,000 distinct ones', () => {
    const keys = grow((i) => `"k${i}": ${i}, `);
    expect(refusal(`{${keys}"k7": 0}`, 'PARSE_UNSAFE_CONTENT')).toContain('duplicate key "k7"');
  });

  it('reads 60,000 keys, 1 MB of escapes and a 1 MB number list, and canonicalises them', () => {
    const keys = parseJsonAst(`{${grow((i) => `"k${i}": ${i}, `)}"z": 0}`, 'keys.json');
    expect(keys.type === 'object' && keys.entries.length).toBeGreaterThan(60_000);
    expect(canonicalJson(keys).startsWith('{"k0":0,"k1":1,"k10":10,')).toBe(true);
    const escapes = parseJsonAst(`"${'\\n\\u00e9'.repeat(MB / 8)}"`, 'esc.json');
    expect(jsonNodeToValue(escapes)).toBe('\né'.repeat(MB / 8));
    const numbers = parseJsonAst(`[${grow((i) => `${i}.5e1, `)}0]`, 'n.json');
    expect(numbers.type === 'array' && numbers.items.length).toBeGreaterThan(60_000);
  });

  it('refuses an integer of 1 MB of digits and an unterminated 1 MB string', () => {
    refusal('9'.repeat(MB), 'PARSE_UNSAFE_CONTENT');
    refusal(`"${'a'.repeat(MB)}`, 'METADATA_PARSE_FAILED');
  });

  it('canonicalises 1,000 keys sharing a 1,000-character prefix', () => {
    const prefix = 'p'.repeat(1000);
    const text = `{${Array.from({ length: 1000 }, (_, i) => `"${prefix}${999 - i}": ${i}`).join(',')}}`;
    const canonical = canonicalJson(parseJsonAst(text, 'prefix.json'));
    expect(canonical.indexOf(`"${prefix}0"`)).toBeLessThan(canonical.indexOf(`"${prefix}1"`));
  });
});

describe('parseJsonAst() messages', () => {
  it.each([
    ['{/* c */"a":1}', 'comments are not JSON at line 1 column 2'],
    ['"abc\\', 'invalid escape in a string at line 1 column 5'],
    ['-', 'invalid number at line 1 column 1'],
    ['[-x]', 'invalid number at line 1 column 2'],
    ['{"a"', "unexpected end of input, expecting ':' after a key at line 1 column 5"],
    ['{"a" 1}', "expecting ':' after a key at line 1 column 6"],
    ['[1,\n tru]', 'unexpected character "t", expecting a value at line 2 column 2'],
    ['{"a":1,\n😀}', 'unexpected character "😀", expecting a key at line 2 column 1'],
    ['[😀]', 'unexpected character "😀", expecting a value at line 1 column 2'],
  ])('names what is wrong and where: %j', (text, why) => {
    expect(refusal(text, 'METADATA_PARSE_FAILED')).toBe(
      `Cannot parse JSON in hostile.json: ${why}`,
    );
  });
});

describe('jsonNodeToValue()', () => {
  it('gives what JSON.parse gives for every kind of value', () => {
    const text = '{"a":[1,2.5e1,-0,"s",true,false,null],"b":{"__proto__":{"x":1}}}';
    const value = jsonNodeToValue(parseJsonAst(text, 'v.json'));
    expect(value).toEqual(JSON.parse(text));
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.keys((value as { b: object }).b)).toEqual(['__proto__']);
  });
});
