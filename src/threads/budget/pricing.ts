import { RyeError } from '../../errors/index.js';
import type { Usage } from '../conversation/index.js';
import { isNanos, nanosFromBig, parseUsd, type Nanos } from './money.js';

/**
 * A model's prices in nanos per million tokens, parsed from the provider
 * data's decimal USD strings (THREADS.md §7 `pricing{input, output,
 * cache_read?, cache_write?}`). An absent dimension is unpriced.
 */
export interface ModelPricing {
  readonly input: Nanos;
  readonly output: Nanos;
  readonly cacheRead?: Nanos;
  readonly cacheWrite?: Nanos;
}

/** The provider data's pricing block as written (USD per million tokens). */
export interface PricingStrings {
  readonly input?: unknown;
  readonly output?: unknown;
  readonly cache_read?: unknown;
  readonly cache_write?: unknown;
}

const MILLION = 1_000_000n;

/**
 * Parse a pricing block: every present field a decimal USD string.
 *
 * @throws RyeError BUDGET_UNPRICED_MODEL when input or output is missing;
 *   BUDGET_AMOUNT_INVALID for a field that is not an exact decimal string.
 */
export function parsePricing(block: PricingStrings | undefined, model: string): ModelPricing {
  if (block?.input === undefined || block.output === undefined) {
    throw new RyeError(
      'BUDGET_UNPRICED_MODEL',
      `Cannot price model ${model}: the provider data gives no input and output price`,
      { model },
    );
  }
  const field = (name: string, value: unknown): Nanos =>
    parseUsd(value, `the ${name} price of ${model}`);
  return {
    input: field('input', block.input),
    output: field('output', block.output),
    ...(block.cache_read === undefined ? {} : { cacheRead: field('cache_read', block.cache_read) }),
    ...(block.cache_write === undefined
      ? {}
      : { cacheWrite: field('cache_write', block.cache_write) }),
  };
}

/**
 * Refuse to launch a thread with a finite spend limit and no prices: the
 * ledger could not bound what it spends (THREADS.md §6 "unpriced").
 *
 * @throws RyeError BUDGET_UNPRICED_MODEL
 */
export function requirePricedForLimit(
  pricing: ModelPricing | undefined,
  limitNanos: Nanos | null,
  model: string,
): void {
  if (pricing !== undefined || limitNanos === null) return;
  throw new RyeError(
    'BUDGET_UNPRICED_MODEL',
    `Cannot run model ${model} under a spend limit: the provider data gives it no prices`,
    { model, limit_nanos: limitNanos },
  );
}

/**
 * `ceil(tokens × nanosPerMtok / 10^6)` in BigInt: what `tokens` cost at a rate,
 * rounded up so the ledger never under-counts. Pure.
 *
 * @throws RyeError BUDGET_AMOUNT_INVALID when an operand is not a non-negative
 *   safe integer or the cost leaves the safe range.
 */
export function costOf(tokens: number, nanosPerMtok: Nanos): Nanos {
  if (!isNanos(tokens) || !isNanos(nanosPerMtok)) {
    throw new RyeError(
      'BUDGET_AMOUNT_INVALID',
      `Cannot price ${tokens} tokens at ${nanosPerMtok}`,
      {
        tokens,
        nanosPerMtok,
      },
    );
  }
  const product = BigInt(tokens) * BigInt(nanosPerMtok);
  return nanosFromBig((product + MILLION - 1n) / MILLION, 'a cost');
}

/**
 * What reported usage costs, or `null` when the usage cannot be trusted to
 * say: missing, not an object, a count that is not a non-negative safe
 * integer, or tokens in a dimension the model has no price for. The ledger
 * charges its full reservation for `null` (`charged_max`). Pure; untrusted
 * input (the provider's answer).
 */
export function chargeForUsage(usage: unknown, pricing: ModelPricing): Nanos | null {
  if (typeof usage !== 'object' || usage === null) return null;
  const u = usage as Partial<Record<keyof Usage, unknown>>;
  if (!isNanos(u.in) || !isNanos(u.out)) return null;
  const cacheR = u.cache_r ?? 0;
  const cacheW = u.cache_w ?? 0;
  if (!isNanos(cacheR) || !isNanos(cacheW)) return null;
  if (cacheR > 0 && pricing.cacheRead === undefined) return null;
  if (cacheW > 0 && pricing.cacheWrite === undefined) return null;
  try {
    const parts = [
      costOf(u.in, pricing.input),
      costOf(u.out, pricing.output),
      costOf(cacheR, pricing.cacheRead ?? 0),
      costOf(cacheW, pricing.cacheWrite ?? 0),
    ];
    return nanosFromBig(
      parts.reduce((sum, part) => sum + BigInt(part), 0n),
      'a usage cost',
    );
  } catch {
    return null;
  }
}
