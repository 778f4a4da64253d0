import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { isRyeError } from '../../../src/errors/index.js';
import type { ErrorCode } from '../../../src/errors/index.js';
import {
  MAX_YAML_ALIASES,
  MAX_YAML_LEXEMES,
  parseYamlSafe,
} from '../../../src/items/metadata/safe-yaml.js';

const MB = 1024 * 1024;

/** `part(0) + part(1) + …` until the text reaches `size` characters. */
function grow(part: (i: number) => string, size = MB): string {
  const parts: string[] = [];
  let length = 0;
  for (let i = 0; length < size; i += 1) {
    const next = part(i);
    parts.push(next);
    length += next.length;
  }
  return parts.join('');
}

function refusal(text: string, code: ErrorCode): Error & { details: Record<string, unknown> } {
  try {
    parseYamlSafe(text, 'hostile.yaml');
  } catch (error) {
    expect(isRyeError(error, code), `expected ${code}, got ${String(error)}`).toBe(true);
    expect((error as Error).message).toMatch(/^Cannot parse YAML in hostile\.yaml: /);
    return error as Error & { details: Record<string, unknown> };
  }
  throw new Error(`expected ${code}`);
}

describe('parseYamlSafe(): hostile 1 MB documents', () => {
  it('refuses 1 MB of distinct keys (once a quadratic duplicate-key check) by its token cap', () => {
    const error = refusal(
      grow((i) => `k${i}: 1\n`),
      'PARSE_UNSAFE_CONTENT',
    );
    expect(error.message).toContain(`more than ${MAX_YAML_LEXEMES} YAML tokens`);
  });

  it('refuses 1 MB of keys in one flow map, and 1 MB of comment lines', () => {
    refusal(`{${grow((i) => `k${i}: 1, `)}z: 1}`, 'PARSE_UNSAFE_CONTENT');
    refusal(
      grow(() => '# a comment\n'),
      'PARSE_UNSAFE_CONTENT',
    );
  });

  it('refuses 1 MB of nesting (flow, compact block, indented) before any recursion runs', () => {
    for (const text of [
      `${'['.repeat(MB / 2)}${']'.repeat(MB / 2)}`,
      `${'{a: '.repeat(MB / 4)}1${'}'.repeat(MB / 4)}`,
      `${'- '.repeat(MB / 2)}x\n`,
      grow((i) => `${' '.repeat(i)}a:\n`, MB),
    ]) {
      expect(refusal(text, 'PARSE_UNSAFE_CONTENT').message).toMatch(/nested deeper than/);
    }
  });

  it('refuses 1 MB of anchor/alias pairs (once one scan of every anchor per alias)', () => {
    refusal(`l:\n${grow((i) => `- &a${i} x\n- *a${i}\n`)}`, 'PARSE_UNSAFE_CONTENT');
  });

  it('reads a 1 MB scalar: the cap counts tokens, not bytes', () => {
    const long = 'x'.repeat(MB);
    expect(parseYamlSafe(`description: "${long}"\nblock: |\n  ${long}\n`, 'big.yaml')).toEqual({
      description: long,
      block: `${long}\n`,
    });
  });
});

describe('parseYamlSafe(): caps under the token cap', () => {
  it('refuses nesting deeper than 64 levels and reads 64', () => {
    const nested = (n: number): string => `${'['.repeat(n)}1${']'.repeat(n)}`;
    expect(refusal(nested(65), 'PARSE_UNSAFE_CONTENT').message).toContain('deeper than 64');
    let value = parseYamlSafe(nested(64), 'ok.yaml');
    for (let depth = 0; depth < 64; depth += 1) value = (value as unknown[])[0];
    expect(value).toBe(1);
  });

  it('refuses a billion-laughs document and more aliases than the cap', () => {
    const bomb = ['a: &a [x, x, x, x, x, x, x, x, x]'];
    for (const name of 'bcdefg') {
      const prev = String.fromCharCode(name.charCodeAt(0) - 1);
      bomb.push(`${name}: &${name} [${Array(9).fill(`*${prev}`).join(', ')}]`);
    }
    expect(refusal(bomb.join('\n'), 'PARSE_UNSAFE_CONTENT').message).toMatch(/aliases/);
    const many = `a: &a 1\nl: [${Array(MAX_YAML_ALIASES + 1)
      .fill('*a')
      .join(', ')}]\n`;
    expect(refusal(many, 'PARSE_UNSAFE_CONTENT').message).toContain(
      `more than ${MAX_YAML_ALIASES} aliases`,
    );
  });

  it('refuses a cyclic alias and an alias without an anchor', () => {
    refusal('a: &a [1, *a]\n', 'PARSE_UNSAFE_CONTENT');
    refusal('a: *nowhere\n', 'METADATA_PARSE_FAILED');
  });

  it('finds duplicate keys among 10,000 in linear time, including keys naming one property', () => {
    const keys = Array.from({ length: 10_000 }, (_, i) => `k${i}: ${i}\n`).join('');
    expect(Object.keys(parseYamlSafe(keys, 'ok.yaml') as object)).toHaveLength(10_000);
    expect(refusal(`${keys}k7: again\n`, 'METADATA_PARSE_FAILED').message).toContain(
      'duplicate key "k7"',
    );
    refusal('1: a\n"1": b\n', 'METADATA_PARSE_FAILED');
    refusal('~: a\n"": b\n', 'METADATA_PARSE_FAILED');
    refusal('? [a, b]\n: c\n', 'METADATA_PARSE_FAILED');
  });
});

describe('parseYamlSafe(): normal documents read as the yaml package reads them', () => {
  const SAMPLES = [
    'version: "1.0.0"\ntool_type: runtime\nexecutor_id: null\nconfig:\n  args: ["{tool_path}", 2, 3.5, true, ~]\n',
    'base: &base {timeout: 30, retries: 2}\nfast: *base\nlist:\n  - &item {a: 1}\n  - *item\n',
    'a: &x 1\nb: &x 2\nc: *x\n',
    'flow: [a: 1, b]\nempty: {}\nnone:\nhex: 0x1f\noct: 0o17\nfloat: .inf\ntext: >\n  folded\n  lines\n',
    '__proto__: {polluted: true}\nconstructor: x\n',
    '',
    '# only a comment\n',
    '- a\n- b\n',
  ];

  it.each(SAMPLES)('reads %j like yaml.parse', (text) => {
    expect(parseYamlSafe(text, 'ok.yaml')).toEqual(parse(text, { schema: 'core' }) ?? null);
  });

  it('keeps __proto__ an own data key and shares aliased values', () => {
    const value = parseYamlSafe(SAMPLES[4] ?? '', 'ok.yaml') as Record<string, unknown>;
    expect(Object.keys(value)).toEqual(['__proto__', 'constructor']);
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    const shared = parseYamlSafe(SAMPLES[1] ?? '', 'ok.yaml') as Record<string, unknown>;
    expect(shared['fast']).toBe(shared['base']);
  });

  it('refuses several documents and syntax errors', () => {
    refusal('a: 1\n---\nb: 2\n', 'METADATA_PARSE_FAILED');
    refusal('a: [1, 2\n', 'METADATA_PARSE_FAILED');
  });
});
