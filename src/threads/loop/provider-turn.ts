/**
 * The runner's provider phase: one turn's request sent as paid attempts
 * (Reserving → CallingProvider → Settling, paid-attempt.ts) with bounded
 * retries (THREADS.md §5, §6), the answer joined to the conversation, and a
 * failure turned into the thread's ending, or into one more try when a hook
 * asks for it (THREADS.md §12 `provider_error`).
 */
import { isRyeError } from '../../errors/index.js';
import type { Clock } from '../../ids/index.js';
import { attemptKeyOf, type BudgetStore, type ModelPricing } from '../budget/index.js';
import type { ThreadHooks } from '../hooks/index.js';
import {
  DEFAULT_RETRY_POLICY,
  withProviderRetries,
  type ProviderClient,
  type ProviderResponse,
  type RetryPolicy,
} from '../providers/index.js';
import { endAtLimit, type Ending } from './ending.js';
import { limitError } from './limits-check.js';
import { paidAttempt, type AttemptContext } from './paid-attempt.js';
import type { RunContext } from './run-context.js';
import { publicCost } from './thread-result.js';

/** What a turn's provider call needs from its run. */
export interface ProviderTurnContext extends RunContext {
  readonly clock: Clock;
  readonly budget: BudgetStore;
  readonly pricing: ModelPricing;
  readonly client: ProviderClient;
  /** Aborts the request in flight (a cancel, the deadline). */
  readonly signal: AbortSignal;
  readonly retryPolicy: Partial<RetryPolicy> | undefined;
  readonly hooks: ThreadHooks;
}

/** What a turn's provider call came to: the answer, the thread's ending, or a hook's retry. */
export type ProviderTurn =
  { readonly response: ProviderResponse } | { readonly ending: Ending } | { readonly retry: true };

/**
 * Send turn `turn` (its attempt keys are `attemptKeyOf(thread, turn, n)`);
 * each retry is checked against the limits first. The answer counts a turn
 * and joins the conversation; a budget denial ends the thread
 * `budget_denied`, a limit or a failure past the deadline `error`.
 *
 * @throws whatever is not a RyeError (a bug, not a provider failure)
 */
export async function callProvider(ctx: ProviderTurnContext, turn: number): Promise<ProviderTurn> {
  try {
    return { response: await answerOf(ctx, turn) };
  } catch (error) {
    if (!isRyeError(error)) throw error;
    if (error.code === 'BUDGET_DENIED') return { ending: { status: 'budget_denied', error } };
    if (error.code === 'THREAD_LIMIT_EXCEEDED') return { ending: { status: 'error', error } };
    if (ctx.limits.deadlinePassed())
      return { ending: endAtLimit(ctx.writer, ctx.limits.durationHit()) };
    if ((await ctx.hooks.onProviderError(error)) === 'retry') return { retry: true };
    return { ending: { status: 'error', error } };
  }
}

async function answerOf(ctx: ProviderTurnContext, turn: number): Promise<ProviderResponse> {
  const request = ctx.body.attempt();
  const paying = attemptContextOf(ctx);
  const response = await withProviderRetries(
    (attempt) =>
      paidAttempt(paying, { key: attemptKeyOf(ctx.threadId, turn, attempt), ...request }),
    {
      ...(ctx.retryPolicy === undefined
        ? {}
        : { policy: { ...DEFAULT_RETRY_POLICY, ...ctx.retryPolicy } }),
      signal: ctx.signal,
      beforeAttempt: (n) => {
        if (n === 1) return;
        const hit = ctx.limits.beforeCall(ctx.cost.value);
        if (hit !== null) throw limitError(hit);
      },
      onRetry: ({ attempt, delayMs, error }) =>
        ctx.progress(`  provider ${error.code} on attempt ${attempt}; retrying in ${delayMs} ms`),
    },
  );
  ctx.cost.countTurn();
  ctx.body.push({ role: 'assistant', content: response.content });
  const cost = ctx.cost.value;
  ctx.progress(
    `turn ${cost.turns}: ${response.stop_reason}, ${cost.tokens_in} in / ${cost.tokens_out} out, $${publicCost(cost).spend_usd}`,
  );
  return response;
}

function attemptContextOf(ctx: ProviderTurnContext): AttemptContext {
  return {
    budget: ctx.budget,
    writer: ctx.writer,
    threadId: ctx.threadId,
    pricing: ctx.pricing,
    client: ctx.client,
    signal: ctx.signal,
    deadline: ctx.limits.deadline,
    now: () => ctx.clock.now(),
    charge: (nanos, usage) => ctx.cost.charge(nanos, usage),
  };
}
