import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RyeError } from '../../../src/errors/index.js';
import { spendNanos } from '../../../src/items/index.js';
import {
  DEFAULT_LIMITS,
  clampLimits,
  isUnlimited,
  parseLimitOverrides,
  resolveLimits,
  type ResolvedLimits,
} from '../../../src/threads/directive/index.js';

function refusal(args: string[]): RyeError {
  try {
    parseLimitOverrides(args);
  } catch (error) {
    if (error instanceof RyeError) return error;
    throw error;
  }
  throw new Error('expected USAGE_INVALID_ARGUMENT');
}

describe('resolveLimits()', () => {
  it('starts from the THREADS.md §5 defaults', () => {
    expect(resolveLimits({})).toEqual({
      turns: 25,
      tokens: 200000,
      spend: '1.00',
      spawns: 10,
      depth: 5,
      duration_seconds: 1800,
      tool_calls: 200,
    });
    expect(Object.isFrozen(DEFAULT_LIMITS)).toBe(true);
  });

  it('lets the directive replace defaults (0 = unlimited); an override only narrows', () => {
    const declared = { turns: 30, spend: '3.00', spawns: 0 };
    expect(resolveLimits(declared)).toMatchObject({
      turns: 30,
      spend: '3.00',
      spawns: 0,
      depth: 5,
    });
    const overrides = parseLimitOverrides(['turns=0', 'max_spend=0.25', 'depth=2', 'spawns=4']);
    expect(resolveLimits(declared, overrides)).toEqual({
      ...DEFAULT_LIMITS,
      // 0 (unlimited) lifts nothing: the directive's 30 stays.
      turns: 30,
      spend: '0.25',
      // Under the directive's unlimited spawns, 4 narrows.
      spawns: 4,
      depth: 2,
    });
  });

  it('never lifts a limit: a larger override leaves the directive’s (or the default)', () => {
    const declared = { turns: 6, spend: '0.50' };
    const lifted = parseLimitOverrides([
      'turns=40',
      'spend=0',
      'tokens=9999999',
      'duration_seconds=0',
      'tool_calls=100000',
    ]);
    expect(resolveLimits(declared, lifted)).toEqual({ ...DEFAULT_LIMITS, turns: 6, spend: '0.50' });
  });
});

describe('parseLimitOverrides()', () => {
  it('reads k=v with short names and max_ aliases', () => {
    expect(
      parseLimitOverrides(['turns=40', 'max_tokens=1000', 'spend=2.50', 'tool_calls=0']),
    ).toEqual({ turns: 40, tokens: 1000, spend: '2.50', tool_calls: 0 });
    expect(parseLimitOverrides([])).toEqual({});
  });

  it('lists every bad --limit at once as USAGE_INVALID_ARGUMENT', () => {
    const error = refusal([
      'turns',
      '=3',
      'turn=3',
      'turns=-1',
      'spend=1e3',
      'depth=99',
      'tokens=5',
      'max_tokens=6',
    ]);
    expect(error.code).toBe('USAGE_INVALID_ARGUMENT');
    expect(error.details['issues']).toEqual([
      { field: '--limit turns', message: 'must be k=v, e.g. turns=40 or spend=2.50' },
      { field: '--limit =3', message: 'must be k=v, e.g. turns=40 or spend=2.50' },
      { field: '--limit turn=3', message: expect.stringContaining('unknown limit') },
      {
        field: '--limit turns=-1',
        message: expect.stringContaining('turns must be a whole number'),
      },
      {
        field: '--limit spend=1e3',
        message: expect.stringContaining('spend must be a decimal USD'),
      },
      { field: '--limit depth=99', message: 'depth must be at most 15 (0 = unlimited), got 99' },
      { field: '--limit max_tokens=6', message: 'limit tokens is given twice' },
    ]);
  });
});

const limitsArb = fc.record({
  turns: fc.integer({ min: 0, max: 10_000 }),
  tokens: fc.integer({ min: 0, max: 100_000_000 }),
  spend: fc
    .tuple(fc.integer({ min: 0, max: 9_999 }), fc.integer({ min: 0, max: 999_999_999 }))
    .map(([whole, nanos]) => `${whole}.${String(nanos).padStart(9, '0')}`),
  spawns: fc.integer({ min: 0, max: 1_000 }),
  depth: fc.integer({ min: 0, max: 15 }),
  duration_seconds: fc.integer({ min: 0, max: 604_800 }),
  tool_calls: fc.integer({ min: 0, max: 100_000 }),
});

/** `a` is within `b`: every limit b sets, a sets no higher. */
function within(a: ResolvedLimits, b: ResolvedLimits): boolean {
  return (Object.keys(b) as (keyof ResolvedLimits)[]).every((k) => {
    const [x, y] = [a[k], b[k]];
    if (isUnlimited(y)) return true;
    if (isUnlimited(x)) return false;
    return typeof x === 'string' ? spendNanos(x) <= spendNanos(y as string) : x <= (y as number);
  });
}

describe('clampLimits()', () => {
  it('takes the other side when one is unlimited, else the minimum', () => {
    const child = { ...DEFAULT_LIMITS, turns: 0, tokens: 500, spend: '5.00', spawns: 3 };
    const parent = { ...DEFAULT_LIMITS, turns: 30, tokens: 0, spend: '0.50', spawns: 8 };
    expect(clampLimits(child, parent)).toEqual({
      ...DEFAULT_LIMITS,
      turns: 30,
      tokens: 500,
      spend: '0.50',
      spawns: 3,
    });
    const unlimited = { ...DEFAULT_LIMITS, spend: '0.000' };
    expect(clampLimits(unlimited, parent).spend).toBe('0.50');
  });

  it('is never wider than either side, commutative in value and idempotent (property)', () => {
    fc.assert(
      fc.property(limitsArb, limitsArb, (a, b) => {
        const ab = clampLimits(a, b);
        expect(within(ab, a) && within(ab, b)).toBe(true);
        const ba = clampLimits(b, a);
        for (const k of Object.keys(ab) as (keyof ResolvedLimits)[]) {
          const [x, y] = [ab[k], ba[k]];
          if (typeof x === 'string') expect(spendNanos(x)).toBe(spendNanos(y as string));
          else expect(x).toBe(y);
        }
        expect(clampLimits(ab, ab)).toEqual(ab);
      }),
    );
  });
});
