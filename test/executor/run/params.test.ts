import { describe, expect, it } from 'vitest';
import { RyeError } from '../../../src/errors/index.js';
import { validateParams } from '../../../src/executor/run/params.js';

const SCHEMA = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    count: { type: 'integer', minimum: 1, default: 3 },
    tags: { type: 'array', items: { type: 'string' }, default: [] },
  },
  required: ['name'],
  additionalProperties: false,
};

function errorOf(run: () => unknown): RyeError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(RyeError);
    return error as RyeError;
  }
  throw new Error('expected a RyeError');
}

describe('validateParams()', () => {
  it('fills schema defaults and leaves the input untouched', () => {
    const params = { name: 'x' };
    expect(validateParams(params, SCHEMA, 'my/tool')).toEqual({ name: 'x', count: 3, tags: [] });
    expect(params).toEqual({ name: 'x' });
  });

  it('lists every violation at once', () => {
    const error = errorOf(() =>
      validateParams({ count: 0, tags: [1], extra: true }, SCHEMA, 'my/tool'),
    );
    expect(error.code).toBe('PARAMS_INVALID');
    expect(error.details['issues']).toEqual([
      { path: '/name', message: 'is required' },
      { path: '/extra', message: 'is not a parameter of this tool' },
      { path: '/count', message: 'must be >= 1' },
      { path: '/tags/0', message: 'must be string' },
    ]);
    expect(error.message).toMatch(/^Cannot run my\/tool: params do not match config_schema: /);
    expect(error.message).toContain('/tags/0 must be string');
  });

  it.each([
    ['null', null],
    ['a list', [1]],
    ['a string', '{"name":"x"}'],
    ['a number', 1],
  ])('refuses params that are %s', (_kind, params) => {
    const error = errorOf(() => validateParams(params, SCHEMA, 'my/tool'));
    expect(error.code).toBe('PARAMS_INVALID');
    expect(error.message).toMatch(/params must be a JSON object/);
  });

  it('refuses params that are not JSON', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic['self'] = cyclic;
    expect(errorOf(() => validateParams(cyclic, null, 'my/tool')).code).toBe('PARAMS_INVALID');
    expect(errorOf(() => validateParams({ n: 1n }, null, 'my/tool')).code).toBe('PARAMS_INVALID');
  });

  it('accepts any JSON object when there is no schema', () => {
    expect(validateParams({ a: [1, { b: null }] }, null, 'my/tool')).toEqual({
      a: [1, { b: null }],
    });
  });

  it('works with null-prototype schemas and params from the literal parser', () => {
    const nullProto = <T extends object>(value: T): T =>
      Object.assign(Object.create(null) as object, value) as T;
    const schema = nullProto({
      type: 'object',
      properties: nullProto({ path: nullProto({ type: 'string', default: '.' }) }),
    });
    expect(validateParams(nullProto({}), schema, 'my/tool')).toEqual({ path: '.' });
  });

  it('refuses a schema that is not an object or does not compile', () => {
    const notObject = errorOf(() =>
      validateParams({}, [] as unknown as Record<string, unknown>, 't'),
    );
    expect(notObject.code).toBe('EXECUTOR_CONFIG_INVALID');
    const bad = errorOf(() => validateParams({}, { type: 'object', properties: 7 }, 't'));
    expect(bad.code).toBe('EXECUTOR_CONFIG_INVALID');
    expect(bad.message).toMatch(/^Cannot use config_schema of t: /);
  });

  it('compiles two different schemas that share an $id', () => {
    const a = { $id: 'https://example.com/s', type: 'object', required: ['a'] };
    const b = { $id: 'https://example.com/s', type: 'object', required: ['b'] };
    expect(validateParams({ a: 1 }, a, 't')).toEqual({ a: 1 });
    expect(validateParams({ b: 1 }, b, 't')).toEqual({ b: 1 });
    expect(errorOf(() => validateParams({ b: 1 }, a, 't')).code).toBe('PARAMS_INVALID');
  });

  it('validates recursive schemas', () => {
    const tree = {
      type: 'object',
      properties: { children: { type: 'array', items: { $ref: '#' } }, v: { type: 'number' } },
    };
    expect(validateParams({ children: [{ children: [{ v: 1 }] }] }, tree, 't')).toBeTruthy();
    const error = errorOf(() =>
      validateParams({ children: [{ children: [{ v: 'x' }] }] }, tree, 't'),
    );
    expect(error.details['issues']).toEqual([
      { path: '/children/0/children/0/v', message: 'must be number' },
    ]);
  });
});
