import { RyeError } from '../../errors/index.js';

/**
 * Money is an integer number of nano-USD (1 USD = 10^9 nanos) in a `number`
 * guarded by `Number.isSafeInteger` (up to about 9 million USD); rate
 * arithmetic uses BigInt. No float ever touches an amount (THREADS.md §6).
 */
export type Nanos = number;

export const NANOS_PER_USD = 1_000_000_000;
const NANOS_PER_USD_BIG = 1_000_000_000n;
const MAX_SAFE_BIG = BigInt(Number.MAX_SAFE_INTEGER);
/** Longer than any safe amount can be written; checked before the regex runs. */
const MAX_AMOUNT_CHARS = 40;
const DECIMAL = /^([0-9]+)(?:\.([0-9]{1,9}))?$/;

/**
 * Parse a USD amount written as a decimal string (`"3"`, `"1.00"`,
 * `"0.000000001"`) exactly into nanos. Numbers are refused even when integral,
 * since YAML and JSON turn `1.10` into a float before anyone sees it.
 *
 * @throws RyeError BUDGET_AMOUNT_INVALID for a non-string, a float, an exponent,
 *   a sign, more than 9 fractional digits, or an amount over the safe range.
 */
export function parseUsd(value: unknown, what = 'amount'): Nanos {
  if (typeof value !== 'string') {
    throw invalid(
      what,
      value,
      `${typeof value === 'number' ? 'a number' : typeof value}, not a decimal string`,
    );
  }
  const match = value.length <= MAX_AMOUNT_CHARS ? DECIMAL.exec(value) : null;
  if (match === null) {
    throw invalid(
      what,
      value,
      'not a plain decimal (digits, an optional point and at most 9 fractional digits)',
    );
  }
  const whole = BigInt(match[1] ?? '0');
  const fraction = BigInt((match[2] ?? '').padEnd(9, '0'));
  const nanos = whole * NANOS_PER_USD_BIG + fraction;
  if (nanos > MAX_SAFE_BIG) throw invalid(what, value, 'over the largest amount rye tracks');
  return Number(nanos);
}

/**
 * Nanos as a decimal USD string with at least two fractional digits and no
 * trailing zeros beyond them (`1000000000` → `"1.00"`, `1` → `"0.000000001"`);
 * `parseUsd(formatUsd(n)) === n` for every valid amount. Pure.
 *
 * @throws RyeError BUDGET_AMOUNT_INVALID when `nanos` is not a non-negative safe integer.
 */
export function formatUsd(nanos: Nanos): string {
  requireNanos(nanos, 'amount');
  const whole = Math.floor(nanos / NANOS_PER_USD);
  const fraction = String(nanos % NANOS_PER_USD)
    .padStart(9, '0')
    .replace(/0+$/, '')
    .padEnd(2, '0');
  return `${whole}.${fraction}`;
}

/**
 * `value` if it is a non-negative safe integer number of nanos.
 * @throws RyeError BUDGET_AMOUNT_INVALID
 */
export function requireNanos(value: unknown, what: string): Nanos {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return value;
  throw invalid(what, value, 'not a non-negative integer number of nanos in the safe range');
}

/** True when `value` is a non-negative safe integer. Pure. */
export function isNanos(value: unknown): value is Nanos {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

/**
 * The sum of amounts, refused when it leaves the safe range.
 * @throws RyeError BUDGET_AMOUNT_INVALID
 */
export function addNanos(...amounts: readonly Nanos[]): Nanos {
  let total = 0;
  for (const amount of amounts) total = requireNanos(requireNanos(amount, 'amount') + total, 'sum');
  return total;
}

/** BigInt result back to nanos, refused when it leaves the safe range. */
export function nanosFromBig(value: bigint, what: string): Nanos {
  if (value < 0n || value > MAX_SAFE_BIG) {
    throw new RyeError(
      'BUDGET_AMOUNT_INVALID',
      `Cannot use ${what}: ${value} nanos is outside the safe range`,
      {
        what,
        nanos: value.toString(),
      },
    );
  }
  return Number(value);
}

function invalid(what: string, value: unknown, why: string): RyeError {
  const shown = typeof value === 'string' ? JSON.stringify(value.slice(0, 60)) : String(value);
  return new RyeError('BUDGET_AMOUNT_INVALID', `Cannot use ${what} ${shown}: ${why}`, {
    what,
    value:
      typeof value === 'string' ? value.slice(0, 200) : typeof value === 'number' ? value : null,
  });
}
