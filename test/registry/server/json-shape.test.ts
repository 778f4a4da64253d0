import { describe, expect, it } from 'vitest';
import { flatObjectProblem } from '../../../src/registry/server/json-shape.js';

describe('flatObjectProblem()', () => {
  it('accepts flat objects of strings, booleans, numbers and null, escapes included', () => {
    for (const text of [
      '{}',
      '{"a": "x", "b": true, "c": 1.5e3, "d": null}',
      '{"a": "[{\\"nested\\": [1]}]"}',
      '{"a": "ends in a backslash \\\\"}',
      ' { "a" : "\\\\\\"" } ',
    ]) {
      expect([text, flatObjectProblem(text, 4)]).toEqual([text, undefined]);
      expect(() => JSON.parse(text) as unknown).not.toThrow();
    }
  });

  it('refuses arrays, nested objects, too many members and unterminated strings', () => {
    expect(flatObjectProblem('[]', 4)).toBe('it holds an array');
    expect(flatObjectProblem('{"a": [1]}', 4)).toBe('it holds an array');
    expect(flatObjectProblem('{"a": {"b": 1}}', 4)).toBe('it holds a nested object');
    expect(flatObjectProblem('{"a": 1, "b": 2, "c": 3}', 2)).toBe('it has more than 2 fields');
    expect(flatObjectProblem('{"a": "x\\"}', 4)).toBe('a string is not terminated');
  });

  it('stops at the first bracket of 12 MiB of nesting', () => {
    const text = `{"content": ${'['.repeat(12 * 1024 * 1024)}`;
    expect(flatObjectProblem(text, 6)).toBe('it holds an array');
  });
});
