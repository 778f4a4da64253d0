import { describe, expect, it } from 'vitest';
import {
  OUTPUT_FLOOR_TOKENS,
  costOf,
  headroomOf,
  inputBoundTokens,
  parsePricing,
  planOutputCap,
  worstCase,
} from '../../../src/threads/budget/index.js';
import { expectRyeError } from '../support.js';

const PRICING = parsePricing({ input: '3.00', output: '15.00' }, 'm');
const BOUND = { contextWindow: 200_000, requestBodyBytes: 10_000, hasNonTextParts: false };

describe('worstCase()', () => {
  it('bounds input by the body bytes and output by max_tokens', () => {
    expect(worstCase(BOUND, 1000, PRICING)).toBe(costOf(10_000, 3e9) + costOf(1000, 15e9));
  });

  it('bounds input by the context window when the body is larger or not all text', () => {
    expect(inputBoundTokens({ ...BOUND, requestBodyBytes: 900_000 })).toBe(200_000);
    expect(inputBoundTokens({ ...BOUND, hasNonTextParts: true })).toBe(200_000);
  });

  it('uses the dearest priced input dimension', () => {
    const withWrites = parsePricing({ input: '3.00', output: '15.00', cache_write: '3.75' }, 'm');
    expect(worstCase(BOUND, 0, withWrites)).toBe(costOf(10_000, 3_750_000_000));
  });

  it('refuses counts that are not non-negative integers', () => {
    expectRyeError(() => worstCase(BOUND, -1, PRICING), 'BUDGET_AMOUNT_INVALID');
    expectRyeError(
      () => worstCase({ ...BOUND, requestBodyBytes: 0.5 }, 1, PRICING),
      'BUDGET_AMOUNT_INVALID',
    );
  });
});

describe('planOutputCap()', () => {
  const input = costOf(10_000, 3e9);

  it('keeps the model output limit when nothing is finite', () => {
    expect(
      planOutputCap({ bound: BOUND, outputLimit: 8192, pricing: PRICING, headroom: null }),
    ).toEqual({
      ok: true,
      maxTokens: 8192,
      worstNanos: worstCase(BOUND, 8192, PRICING),
    });
  });

  it('shortens max_tokens to what the tightest account affords, and the reservation fits', () => {
    const headroom = input + costOf(1000, 15e9) + 7;
    const plan = planOutputCap({ bound: BOUND, outputLimit: 8192, pricing: PRICING, headroom });
    expect(plan).toEqual({ ok: true, maxTokens: 1000, worstNanos: input + costOf(1000, 15e9) });
    if (plan.ok) expect(plan.worstNanos).toBeLessThanOrEqual(headroom);
  });

  it('denies below the 256-token floor instead of sending a useless request', () => {
    const headroom = input + costOf(OUTPUT_FLOOR_TOKENS - 1, 15e9);
    expect(planOutputCap({ bound: BOUND, outputLimit: 8192, pricing: PRICING, headroom })).toEqual({
      ok: false,
      affordableTokens: 255,
      floorTokens: 256,
    });
    expect(
      planOutputCap({ bound: BOUND, outputLimit: 8192, pricing: PRICING, headroom: input - 1 }).ok,
    ).toBe(false);
  });

  it('accepts exactly the floor', () => {
    const headroom = input + costOf(OUTPUT_FLOOR_TOKENS, 15e9);
    const plan = planOutputCap({ bound: BOUND, outputLimit: 8192, pricing: PRICING, headroom });
    expect(plan).toMatchObject({ ok: true, maxTokens: 256 });
  });
});

describe('headroomOf()', () => {
  it('is the least left on the finite accounts', () => {
    expect(
      headroomOf([
        { limitNanos: null, committedNanos: 5, heldNanos: 5 },
        { limitNanos: 100, committedNanos: 30, heldNanos: 20 },
        { limitNanos: 1000, committedNanos: 900, heldNanos: 40 },
      ]),
    ).toBe(50);
    expect(headroomOf([{ limitNanos: null, committedNanos: 0, heldNanos: 0 }])).toBeNull();
  });
});
