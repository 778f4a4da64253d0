import { parseDocument } from 'yaml';
import { describe, expect, it } from 'vitest';
import { isRyeError } from '../../../src/errors/index.js';
import type { ErrorCode } from '../../../src/errors/index.js';
import { yamlToValue } from '../../../src/items/metadata/yaml-value.js';

const CAPS = { maxAliases: 4, maxAliasedNodes: 20, maxDepth: 3 };

const convert = (text: string): unknown =>
  yamlToValue(parseDocument(text, { schema: 'core', uniqueKeys: false }), 'v.yaml', CAPS);

function refusal(text: string, code: ErrorCode): string {
  try {
    convert(text);
  } catch (error) {
    expect(isRyeError(error, code), String(error)).toBe(true);
    return (error as Error).message;
  }
  throw new Error(`expected ${code}`);
}

describe('yamlToValue()', () => {
  it('resolves an alias to the last anchor of its name before it, even one inside a node', () => {
    expect(convert('a: &x [&x 1, 2]\nb: *x\n')).toEqual({ a: [1, 2], b: 1 });
    expect(convert('&k key: *k\n')).toEqual({ key: 'key' });
  });

  it('reads a pair in a flow sequence as a one-entry map, counting its depth', () => {
    expect(convert('[a: 1, b]')).toEqual([{ a: 1 }, 'b']);
    expect(refusal('[[[a: 1]]]', 'PARSE_UNSAFE_CONTENT')).toContain('deeper than 3 levels');
    expect(convert('[[a: 1]]')).toEqual([[{ a: 1 }]]);
  });

  it('counts what aliases stand for, not how many there are', () => {
    expect(convert('a: &a [1, 2, 3]\nb: [*a, *a]\n')).toEqual({
      a: [1, 2, 3],
      b: [
        [1, 2, 3],
        [1, 2, 3],
      ],
    });
    expect(
      refusal('a: &a [1, 2, 3, 4, 5, 6]\nb: [*a, *a, *a]\n', 'PARSE_UNSAFE_CONTENT'),
    ).toContain('more than 20 nodes');
    expect(refusal('a: &a 1\nb: [*a, *a, *a, *a, *a]\n', 'PARSE_UNSAFE_CONTENT')).toContain(
      'more than 4 aliases',
    );
  });

  it('names the first duplicate property, shortened', () => {
    const key = 'k'.repeat(100);
    expect(refusal(`${key}: 1\n"${key}": 2\n`, 'METADATA_PARSE_FAILED')).toContain(
      `duplicate key "${'k'.repeat(60)}"`,
    );
    expect(refusal('true: 1\n"true": 2\n', 'METADATA_PARSE_FAILED')).toContain(
      'duplicate key "true"',
    );
  });
});

describe('yamlToValue() weighs long strings', () => {
  it('counts a string one node per 64 characters when an alias stands for it', () => {
    const caps = { maxAliases: 50, maxAliasedNodes: 10_000, maxDepth: 64 };
    const doc = (text: string): unknown =>
      yamlToValue(parseDocument(text, { schema: 'core' }), 'v.yaml', caps);
    const long = 'x'.repeat(1024 * 1024);
    expect(() => doc(`a: &a "${long}"\nb: *a\n`)).toThrow(
      expect.objectContaining({ code: 'PARSE_UNSAFE_CONTENT' }),
    );
    const short = 'x'.repeat(6_000);
    expect(doc(`a: &a "${short}"\nb: [*a, *a, *a]\n`)).toEqual({
      a: short,
      b: [short, short, short],
    });
  });
});
