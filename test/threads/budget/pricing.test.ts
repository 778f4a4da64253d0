import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  chargeForUsage,
  costOf,
  parsePricing,
  requirePricedForLimit,
} from '../../../src/threads/budget/index.js';
import { expectRyeError } from '../support.js';

const SONNET = parsePricing({ input: '3.00', output: '15.00', cache_read: '0.30' }, 'sonnet');

describe('parsePricing()', () => {
  it('reads USD per million tokens into nanos per million tokens', () => {
    expect(SONNET).toEqual({
      input: 3_000_000_000,
      output: 15_000_000_000,
      cacheRead: 300_000_000,
    });
  });

  it('refuses a model without input and output prices', () => {
    expectRyeError(() => parsePricing(undefined, 'm'), 'BUDGET_UNPRICED_MODEL');
    expectRyeError(() => parsePricing({ input: '1.00' }, 'm'), 'BUDGET_UNPRICED_MODEL');
  });

  it('refuses float and exponent prices', () => {
    expectRyeError(() => parsePricing({ input: 3, output: '15' }, 'm'), 'BUDGET_AMOUNT_INVALID');
    expectRyeError(() => parsePricing({ input: '3', output: '1e1' }, 'm'), 'BUDGET_AMOUNT_INVALID');
  });
});

describe('requirePricedForLimit()', () => {
  it('refuses an unpriced model only under a finite limit', () => {
    expectRyeError(() => requirePricedForLimit(undefined, 1, 'm'), 'BUDGET_UNPRICED_MODEL');
    expect(() => requirePricedForLimit(undefined, null, 'm')).not.toThrow();
    expect(() => requirePricedForLimit(SONNET, 1, 'm')).not.toThrow();
  });
});

describe('costOf()', () => {
  it('rounds up to the next nano', () => {
    expect(costOf(1, 3_000_000_000)).toBe(3000);
    expect(costOf(1, 1)).toBe(1);
    expect(costOf(0, 1)).toBe(0);
    expect(costOf(1_000_000, 1)).toBe(1);
    expect(costOf(1_000_001, 1)).toBe(2);
  });

  it('equals the exact ceiling for any counts (checked in BigInt)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 10_000_000 }),
        fc.integer({ min: 0, max: 10 ** 12 }),
        (t, r) => {
          const exact = BigInt(t) * BigInt(r);
          const cost = BigInt(costOf(t, r));
          expect(cost * 1_000_000n >= exact).toBe(true);
          expect((cost - 1n) * 1_000_000n < exact || cost === 0n).toBe(true);
        },
      ),
    );
  });

  it('refuses fractional or negative operands', () => {
    expectRyeError(() => costOf(1.5, 1), 'BUDGET_AMOUNT_INVALID');
    expectRyeError(() => costOf(-1, 1), 'BUDGET_AMOUNT_INVALID');
  });
});

describe('chargeForUsage()', () => {
  it('prices each dimension and sums', () => {
    expect(chargeForUsage({ in: 1000, out: 100 }, SONNET)).toBe(3_000_000 + 1_500_000);
    expect(chargeForUsage({ in: 0, out: 0, cache_r: 1000 }, SONNET)).toBe(300_000);
  });

  it.each([
    ['missing', undefined],
    ['null', null],
    ['a string', '100'],
    ['no out', { in: 1 }],
    ['negative', { in: -1, out: 1 }],
    ['fractional', { in: 1.5, out: 1 }],
    ['a string count', { in: '1', out: 1 }],
    ['an unpriced cache write', { in: 1, out: 1, cache_w: 5 }],
    ['an unsafe count', { in: 2 ** 60, out: 1 }],
  ])('gives null for %s usage, so the ledger charges the maximum', (_why, usage) => {
    expect(chargeForUsage(usage, SONNET)).toBeNull();
  });
});
