import { describe, expect, it } from 'vitest';
import { errorJson, hintFor, snakeCaseKeys } from '../../src/errors/index.js';

describe('snakeCaseKeys()', () => {
  it('spells lowerCamelCase keys in snake_case at any depth, arrays included', () => {
    expect(
      snakeCaseKeys({
        bundleId: 'a',
        refusedManifests: [{ bundleId: 'b', code: 'X' }],
        retryAfterSeconds: 40,
      }),
    ).toEqual({
      bundle_id: 'a',
      refused_manifests: [{ bundle_id: 'b', code: 'X' }],
      retry_after_seconds: 40,
    });
  });

  it('keeps keys that are data or already snake_case', () => {
    const kept = { PATH: 1, 'src/App.jsx': 2, _signature: 3, tool_id: 4, x: 5, 'a-b': 6 };
    expect(snakeCaseKeys(kept)).toEqual(kept);
  });

  it('leaves values, class instances and a __proto__ key alone', () => {
    const date = new Date(0);
    const out = snakeCaseKeys(JSON.parse('{"__proto__": {"polluted": true}, "when": 1}')) as object;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.hasOwn(out, '__proto__')).toBe(true);
    expect(snakeCaseKeys({ at: date })).toEqual({ at: date });
    expect(snakeCaseKeys('camelCase')).toBe('camelCase');
  });

  it('stops at 32 levels instead of recursing without end', () => {
    let deep: Record<string, unknown> = { leafKey: 1 };
    for (let i = 0; i < 40; i++) deep = { nextLevel: deep };
    expect(() => snakeCaseKeys(deep)).not.toThrow();
  });
});

describe('errorJson()', () => {
  it('is {code, message, hint, details} with snake_case details', () => {
    expect(errorJson('ITEM_NOT_FOUND', 'Cannot find x', { itemId: 'x' })).toEqual({
      code: 'ITEM_NOT_FOUND',
      message: 'Cannot find x',
      hint: hintFor('ITEM_NOT_FOUND'),
      details: { item_id: 'x' },
    });
  });
});
