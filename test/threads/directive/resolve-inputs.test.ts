import { describe, expect, it } from 'vitest';
import { RyeError } from '../../../src/errors/index.js';
import type { DirectiveInputDecl } from '../../../src/items/index.js';
import { resolveInputs } from '../../../src/threads/directive/index.js';

const DECLARED: DirectiveInputDecl[] = [
  { name: 'name', type: 'string', required: true, description: '' },
  { name: 'count', type: 'integer', required: false, default: 3, description: '' },
  { name: 'ratio', type: 'number', required: false, description: '' },
  { name: 'dry', type: 'boolean', required: false, default: false, description: '' },
  { name: 'opts', type: 'object', required: false, description: '' },
  { name: 'tags', type: 'array', required: false, description: '' },
];

function refusal(given: unknown): RyeError {
  try {
    resolveInputs(DECLARED, given, 'demo');
  } catch (error) {
    if (error instanceof RyeError) return error;
    throw error;
  }
  throw new Error('expected INPUTS_INVALID');
}

describe('resolveInputs()', () => {
  it('accepts every declared type, applies defaults and leaves absent optional inputs out', () => {
    expect(
      resolveInputs(DECLARED, {
        name: 'x',
        ratio: 0.5,
        opts: { a: [1] },
        tags: ['a'],
      }),
    ).toEqual({ name: 'x', count: 3, ratio: 0.5, dry: false, opts: { a: [1] }, tags: ['a'] });
    expect(resolveInputs(DECLARED, { name: 'x', count: 7, dry: true })).toEqual({
      name: 'x',
      count: 7,
      dry: true,
    });
    expect(resolveInputs([], undefined)).toEqual({});
  });

  it('lists every problem at once as INPUTS_INVALID: unknown, missing, mistyped', () => {
    const error = refusal({ count: 1.5, ratio: '0.5', dry: 'true', opts: [], tags: {}, colour: 1 });
    expect(error.code).toBe('INPUTS_INVALID');
    expect(error.message).toMatch(/^Cannot run demo with these inputs: 7 problems: /);
    expect(error.details['issues']).toEqual([
      {
        field: 'inputs.colour',
        message: expect.stringContaining('unknown input (declared: name,'),
      },
      { field: 'inputs.name', message: 'is required (string)' },
      { field: 'inputs.count', message: 'must be an integer, got the number 1.5' },
      { field: 'inputs.ratio', message: 'must be a number, got a string' },
      { field: 'inputs.dry', message: 'must be a boolean, got a string' },
      { field: 'inputs.opts', message: 'must be an object, got an array' },
      { field: 'inputs.tags', message: 'must be an array, got an object' },
    ]);
  });

  it('refuses values that are not JSON objects, null values and non-finite numbers', () => {
    expect(refusal(['x']).details['issues']).toEqual([
      { field: 'inputs', message: 'must be a JSON object, got an array' },
    ]);
    expect(refusal(null).details['issues']).toEqual([
      { field: 'inputs', message: 'must be a JSON object, got null' },
    ]);
    expect(refusal({ name: null }).details['issues']).toEqual([
      { field: 'inputs.name', message: 'must be a string, got null' },
    ]);
    expect(refusal({ name: 'x', ratio: Infinity }).details['issues']).toEqual([
      { field: 'inputs.ratio', message: 'must be a number, got the number Infinity' },
    ]);
  });

  it('refuses a __proto__ key from JSON and never touches the prototype', () => {
    const given = JSON.parse('{"name":"x","__proto__":{"polluted":true}}') as unknown;
    expect(refusal(given).details['issues']).toEqual([
      { field: 'inputs.__proto__', message: expect.stringContaining('unknown input') },
    ]);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('caps the problem list of a hostile object', () => {
    const given = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`k${i}`, i]));
    const issues = refusal({ name: 'x', ...given }).details['issues'] as unknown[];
    expect(issues).toHaveLength(101);
    expect(issues[100]).toEqual({ field: '', message: 'and 4900 more problems' });
  });
});
