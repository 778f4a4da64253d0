import { RyeError } from '../../errors/index.js';
import { addNanos, isNanos, type Nanos } from './money.js';
import { costOf, type ModelPricing } from './pricing.js';

/** The fewest output tokens worth a request (THREADS.md §6 "output cap"). */
export const OUTPUT_FLOOR_TOKENS = 256;

/** What a request's input can cost at most. */
export interface InputBound {
  /** The model's context window in tokens. */
  readonly contextWindow: number;
  /** The serialized request body's length in bytes. */
  readonly requestBodyBytes: number;
  /** Images, documents or other non-text parts: a byte no longer bounds a token. */
  readonly hasNonTextParts: boolean;
}

/**
 * The input token bound: `min(context_window, request_body_bytes)`, or the
 * whole context window when the request has non-text parts (a token of text
 * is at least one byte of its JSON; a picture is not). Pure.
 */
export function inputBoundTokens(bound: InputBound): number {
  requireCount(bound.contextWindow, 'context_window');
  requireCount(bound.requestBodyBytes, 'request_body_bytes');
  return bound.hasNonTextParts
    ? bound.contextWindow
    : Math.min(bound.contextWindow, bound.requestBodyBytes);
}

/**
 * The dearest rate an input token can be billed at: the input price, or a
 * priced cache dimension when dearer (cache writes usually are). A request
 * never enables an unpriced dimension, so priced ones are the only candidates.
 */
export function inputRate(pricing: ModelPricing): Nanos {
  return Math.max(pricing.input, pricing.cacheRead ?? 0, pricing.cacheWrite ?? 0);
}

/**
 * The reservation of THREADS.md §6:
 * `ceil(input_tokens × in_rate / 1e6) + ceil(max_tokens_sent × out_rate / 1e6)`. Pure.
 *
 * @throws RyeError BUDGET_AMOUNT_INVALID for counts that are not non-negative safe integers.
 */
export function worstCase(bound: InputBound, maxTokensSent: number, pricing: ModelPricing): Nanos {
  requireCount(maxTokensSent, 'max_tokens');
  return addNanos(
    costOf(inputBoundTokens(bound), inputRate(pricing)),
    costOf(maxTokensSent, pricing.output),
  );
}

/** What an output cap plan decided. */
export type OutputCapPlan =
  | { readonly ok: true; readonly maxTokens: number; readonly worstNanos: Nanos }
  | { readonly ok: false; readonly affordableTokens: number; readonly floorTokens: number };

/**
 * The request's `max_tokens`: the model's output limit clamped to what every
 * account on the path can still afford after the input bound, so a small
 * budget shortens answers instead of refusing every call. Below the floor
 * (256, or the output limit when smaller) the plan is a denial. `headroom`
 * is the least `limit − committed − held` over the finite accounts on the path
 * ({@link headroomOf}), `null` when none is finite. Pure.
 *
 * `ceil(m × out_rate / 1e6) ≤ headroom − input` holds for the chosen `m`, so
 * the reservation it implies fits whenever nothing else reserved meanwhile.
 */
export function planOutputCap(input: {
  readonly bound: InputBound;
  readonly outputLimit: number;
  readonly pricing: ModelPricing;
  readonly headroom: Nanos | null;
}): OutputCapPlan {
  requireCount(input.outputLimit, 'output_limit');
  const inputNanos = costOf(inputBoundTokens(input.bound), inputRate(input.pricing));
  const floorTokens = Math.min(OUTPUT_FLOOR_TOKENS, input.outputLimit);
  let maxTokens = input.outputLimit;
  if (input.headroom !== null) {
    const left = input.headroom - inputNanos;
    const affordable =
      left < 0
        ? -1
        : input.pricing.output === 0
          ? input.outputLimit
          : Number((BigInt(left) * 1_000_000n) / BigInt(input.pricing.output));
    maxTokens = Math.min(input.outputLimit, affordable);
  }
  if (maxTokens < floorTokens || maxTokens < 1) {
    return { ok: false, affordableTokens: Math.max(maxTokens, 0), floorTokens };
  }
  return {
    ok: true,
    maxTokens,
    worstNanos: addNanos(inputNanos, costOf(maxTokens, input.pricing.output)),
  };
}

/** The least amount left on the finite accounts of a path, `null` when none is finite. Pure. */
export function headroomOf(
  path: readonly {
    readonly limitNanos: Nanos | null;
    readonly committedNanos: Nanos;
    readonly heldNanos: Nanos;
  }[],
): Nanos | null {
  let least: Nanos | null = null;
  for (const account of path) {
    if (account.limitNanos === null) continue;
    const left = Math.max(0, account.limitNanos - account.committedNanos - account.heldNanos);
    least = least === null ? left : Math.min(least, left);
  }
  return least;
}

function requireCount(value: number, what: string): void {
  if (!isNanos(value)) {
    throw new RyeError(
      'BUDGET_AMOUNT_INVALID',
      `Cannot bound a request: ${what} is ${value}, not a non-negative integer`,
      { what, value },
    );
  }
}
