import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addNanos, formatUsd, parseUsd } from '../../../src/threads/budget/index.js';
import { expectRyeError } from '../support.js';

describe('parseUsd()', () => {
  it.each([
    ['3', 3_000_000_000],
    ['3.00', 3_000_000_000],
    ['1.5', 1_500_000_000],
    ['0.000000001', 1],
    ['0.1', 100_000_000],
    ['007.25', 7_250_000_000],
    ['9007199.254740991', Number.MAX_SAFE_INTEGER],
  ])('reads %s exactly as %d nanos', (text, nanos) => {
    expect(parseUsd(text)).toBe(nanos);
  });

  it.each([
    '1e3',
    '1E-9',
    '-1',
    '+1',
    '.5',
    '1.',
    '0.0000000001',
    '1,5',
    ' 1',
    '1 ',
    '0x10',
    'Infinity',
    'NaN',
    '',
    '9007199.254740992',
    '1'.repeat(41),
  ])('refuses %j', (text) => {
    expectRyeError(() => parseUsd(text), 'BUDGET_AMOUNT_INVALID');
  });

  it('refuses numbers, even integral ones, and other types', () => {
    for (const value of [1, 0.1, 1.1, null, undefined, {}, 10n]) {
      expectRyeError(() => parseUsd(value), 'BUDGET_AMOUNT_INVALID');
    }
  });
});

describe('formatUsd()', () => {
  it('keeps two fractional digits at least, and every significant one', () => {
    expect(formatUsd(1_000_000_000)).toBe('1.00');
    expect(formatUsd(0)).toBe('0.00');
    expect(formatUsd(1)).toBe('0.000000001');
    expect(formatUsd(1_230_000_000)).toBe('1.23');
    expect(formatUsd(1_234_500_000)).toBe('1.2345');
  });

  it('round-trips every safe amount through parseUsd', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), (nanos) => {
        expect(parseUsd(formatUsd(nanos))).toBe(nanos);
      }),
    );
  });

  it('refuses fractions, negatives and unsafe integers', () => {
    for (const value of [1.5, -1, 2 ** 53, Number.NaN]) {
      expectRyeError(() => formatUsd(value), 'BUDGET_AMOUNT_INVALID');
    }
  });
});

describe('addNanos()', () => {
  it('adds exactly and refuses to leave the safe range', () => {
    expect(addNanos(1, 2, 3)).toBe(6);
    expectRyeError(() => addNanos(Number.MAX_SAFE_INTEGER, 1), 'BUDGET_AMOUNT_INVALID');
  });
});
