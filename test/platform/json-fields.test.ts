import { describe, expect, it } from 'vitest';
import {
  FieldReader,
  fieldOf,
  fieldPath,
  isJsonObject,
  type FieldProblem,
} from '../../src/platform/index.js';

/** A reader that records every problem as `[field, problem]`. */
function recorder(): { read: FieldReader; problems: [string, FieldProblem][] } {
  const problems: [string, FieldProblem][] = [];
  return { read: new FieldReader((field, p) => problems.push([field, p])), problems };
}

describe('fieldOf() and isJsonObject()', () => {
  it('reads own properties only, and maps by key', () => {
    const parsed = JSON.parse('{"__proto__": {"x": 1}, "a": 2}') as Record<string, unknown>;
    expect(fieldOf(parsed, '__proto__')).toEqual({ x: 1 });
    expect(fieldOf({}, 'constructor')).toBeUndefined();
    expect(fieldOf({}, 'toString')).toBeUndefined();
    expect(fieldOf(new Map([['a', 1]]), 'a')).toBe(1);
  });

  it('counts plain and null-prototype objects only', () => {
    expect(isJsonObject({})).toBe(true);
    expect(isJsonObject(Object.create(null))).toBe(true);
    for (const other of [null, [], new Map(), new Date(0), 'x', 1]) {
      expect(isJsonObject(other)).toBe(false);
    }
  });

  it('fieldPath() joins keys and indexes', () => {
    expect(fieldPath('', 'a')).toBe('a');
    expect(fieldPath('a', 'b')).toBe('a.b');
    expect(fieldPath('a', 3)).toBe('a[3]');
  });
});

describe('FieldReader', () => {
  it('reports missing and wrongly typed fields at their path, returning undefined', () => {
    const { read, problems } = recorder();
    const o = { n: 1, s: 'x', nul: null };
    expect(read.string(o, 'absent', 'root')).toBeUndefined();
    expect(read.string(o, 'n', 'root')).toBeUndefined();
    expect(read.string(o, 'nul', 'root')).toBeUndefined();
    expect(read.string(o, 's', 'root')).toBe('x');
    expect(problems).toEqual([
      ['root.absent', { kind: 'missing', expected: 'string' }],
      ['root.n', { kind: 'type', expected: 'string', actual: 1 }],
      ['root.nul', { kind: 'type', expected: 'string', actual: null }],
    ]);
  });

  it('applies the absence policies', () => {
    const { read, problems } = recorder();
    const o = { nul: null };
    expect(read.string(o, 'nul', '', { absent: 'nullable' })).toBeNull();
    expect(read.string(o, 'x', '', { absent: 'nullable' })).toBeUndefined();
    expect(read.string(o, 'x', '', { absent: 'optional' })).toBeNull();
    expect(read.string(o, 'nul', '', { absent: 'optional' })).toBeUndefined();
    expect(read.string(o, 'nul', '', { absent: 'nullish' })).toBeNull();
    expect(read.boolean(o, 'x', '', { fallback: true })).toBe(true);
    expect(read.positive(o, 'nul', '', 7)).toBe(7);
    expect(read.oneOf(o, 'x', '', ['a', 'b'], 'b')).toBe('b');
    expect(problems.map(([field, p]) => `${field} ${p.kind}`)).toEqual(['x missing', 'nul type']);
  });

  it('checks strings: empty, NUL, length in UTF-8 bytes, then the caller check', () => {
    const { read, problems } = recorder();
    const o = { e: '', z: 'a\0b', long: 'é'.repeat(3), bad: 'x', good: 'y' };
    const check = (s: string) => (s === 'x' ? 'is x' : undefined);
    expect(read.string(o, 'e', '', { nonEmpty: true })).toBeUndefined();
    expect(read.string(o, 'z', '', { noNul: true })).toBeUndefined();
    expect(read.string(o, 'long', '', { maxBytes: 5 })).toBeUndefined();
    expect(read.string(o, 'bad', '', { check })).toBeUndefined();
    expect(read.string(o, 'good', '', { check, maxBytes: 1, nonEmpty: true })).toBe('y');
    expect(problems).toEqual([
      ['e', { kind: 'empty', actual: '' }],
      ['z', { kind: 'empty', actual: 'a\0b' }],
      ['long', { kind: 'too_long', maxBytes: 5 }],
      ['bad', { kind: 'invalid', why: 'is x', actual: 'x' }],
    ]);
  });

  it('reads counts, positive numbers, arrays with a cap, and lists of strings entry by entry', () => {
    const { read, problems } = recorder();
    const o = { c: -1, p: 0, a: [1, 2, 3], l: ['a', 1, '', 'b'] };
    expect(read.count(o, 'c', '')).toBeUndefined();
    expect(read.positive(o, 'p', '', 1)).toBeUndefined();
    expect(read.array(o, 'a', '', { max: 2 })).toBeUndefined();
    expect(read.strings(o, 'l', 'x', { nonEmpty: true })).toEqual(['a', 'b']);
    expect(problems.map(([field, p]) => `${field} ${p.kind}`)).toEqual([
      'c type',
      'p type',
      'a too_many',
      'x.l[1] type',
      'x.l[2] empty',
    ]);
  });

  it('reads nothing from a container already reported, and names unknown keys in order', () => {
    const { read, problems } = recorder();
    expect(read.objectField({ o: 'x' }, 'o', '')).toBeUndefined();
    expect(read.string(undefined, 'a', 'o')).toBeUndefined();
    expect(read.oneOf(undefined, 'a', 'o', ['x'])).toBeUndefined();
    read.knownKeys({ b: 1, a: 2, z: 3 }, 'cfg', ['a']);
    expect(problems.map(([field, p]) => `${field} ${p.kind}`)).toEqual([
      'o type',
      'cfg.b unknown_key',
      'cfg.z unknown_key',
    ]);
  });

  it('reads YAML maps by key, and refuses a map where an object is wanted', () => {
    const { read, problems } = recorder();
    const map = new Map<unknown, unknown>([
      ['sha256', 'x'],
      [1, 'numeric key'],
    ]);
    expect(read.map(map, 'm')).toBe(map);
    expect(read.string(map, 'sha256', 'm')).toBe('x');
    expect(read.object(map, 'm', '{a}')).toBeUndefined();
    expect(problems).toEqual([
      ['m', { kind: 'type', expected: 'object', actual: map, label: '{a}' }],
    ]);
  });

  it('a throwing sink stops at the first problem', () => {
    const read = new FieldReader((field) => {
      throw new Error(`bad ${field}`);
    });
    expect(() => read.count({ n: 'x' }, 'n', 'doc')).toThrow('bad doc.n');
  });
});
