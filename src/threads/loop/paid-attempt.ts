/**
 * The runner's provider phase, one attempt: a request paid for before it
 * is sent (reserve, issue, send, settle). provider-turn.ts retries it.
 */
import { RyeError } from '../../errors/index.js';
import {
  assertGranted,
  assertWithinBound,
  chargeForUsage,
  headroomOf,
  planOutputCap,
  type BudgetStore,
  type ModelPricing,
} from '../budget/index.js';
import type { ContentPart } from '../conversation/index.js';
import type { DirectivePlan } from '../admission/index.js';
import type { ProviderClient, ProviderRequest, ProviderResponse } from '../providers/index.js';
import type { TranscriptWriter } from '../transcript/index.js';
import { endFailedAttempt } from './failed-attempt.js';

/** What one paid attempt needs from its thread. */
export interface AttemptContext {
  readonly budget: BudgetStore;
  readonly writer: TranscriptWriter;
  readonly threadId: string;
  readonly pricing: ModelPricing;
  readonly client: ProviderClient;
  readonly signal: AbortSignal;
  readonly deadline: number | undefined;
  readonly now: () => number;
  /** Add a settled or released charge (and, when priced from usage, the tokens) to the thread's cost. */
  readonly charge: (nanos: number, usage: { in: number; out: number } | null) => void;
}

/** One attempt at one turn's request, as the thread computed it. */
export interface AttemptRequest {
  /** The ledger's attempt key (attemptKeyOf: thread, turn, attempt). */
  readonly key: string;
  readonly model: NonNullable<DirectivePlan['model']>;
  readonly request: Omit<ProviderRequest, 'max_tokens'> & { readonly max_tokens: number };
  readonly bodyBytes: number;
  readonly requestSha256: string;
}

/**
 * One provider call paid for before it is sent (THREADS.md §6): cap the
 * output to what every ancestor's balance affords, reserve that worst case,
 * mark it issued, send, then settle from the reported usage (missing usage
 * charges the whole reservation) — or, when the send fails, end the attempt
 * as the failure allows. Every ledger step is mirrored in a `budget` event,
 * and the answer is recorded as `cognition_out`.
 *
 * @throws RyeError BUDGET_DENIED (nothing sent), BUDGET_BOUND_VIOLATED (usage above
 *   the reservation), and whatever the client throws (the attempt ended first)
 */
export async function paidAttempt(
  ctx: AttemptContext,
  { key, model, request, bodyBytes, requestSha256 }: AttemptRequest,
): Promise<ProviderResponse> {
  const balances = await ctx.budget.balances(ctx.threadId);
  const cap = planOutputCap({
    bound: {
      contextWindow: model.context_window,
      requestBodyBytes: bodyBytes,
      hasNonTextParts: false,
    },
    outputLimit: model.output_limit,
    pricing: ctx.pricing,
    headroom: headroomOf(balances),
  });
  if (!cap.ok) {
    ctx.writer.append('budget', { op: 'deny', attempt_id: key, accounts: [], nanos: 0 });
    throw new RyeError(
      'BUDGET_DENIED',
      `Cannot afford the ${cap.floorTokens}-token output floor: the spend left covers ${Math.max(0, cap.affordableTokens)} output tokens after the input bound`,
      {
        attempt: key,
        affordable_tokens: Math.max(0, cap.affordableTokens),
        floor_tokens: cap.floorTokens,
      },
    );
  }
  const worst = cap.worstNanos;
  const reserved = await ctx.budget.reserve({
    attemptKey: key,
    threadId: ctx.threadId,
    requestSha256,
    worstNanos: worst,
  });
  if (!reserved.granted) {
    ctx.writer.append('budget', {
      op: 'deny',
      attempt_id: key,
      accounts: [reserved.accountId],
      nanos: worst,
    });
    assertGranted(reserved);
    throw new Error('unreachable: assertGranted throws on a denial');
  }
  ctx.writer.append('budget', {
    op: 'reserve',
    attempt_id: key,
    accounts: reserved.accounts,
    nanos: worst,
  });
  await ctx.budget.markIssued(key);
  ctx.writer.append('budget', {
    op: 'issue',
    attempt_id: key,
    accounts: reserved.accounts,
    nanos: worst,
  });
  let answer: ProviderResponse;
  try {
    answer = await ctx.client.send(
      { ...request, max_tokens: cap.maxTokens },
      {
        signal: ctx.signal,
        ...(ctx.deadline === undefined ? {} : { deadline: ctx.deadline }),
        now: ctx.now,
      },
    );
  } catch (error) {
    const released = await endFailedAttempt(ctx.budget, key, error);
    ctx.charge(released.committedNanos, null);
    ctx.writer.append('budget', {
      op: 'release',
      attempt_id: key,
      accounts: released.accounts,
      nanos: released.committedNanos,
      basis: released.basis,
      state: released.state,
      reason: released.reason,
    });
    throw error;
  }
  const charge = answer.usage === undefined ? null : chargeForUsage(answer.usage, ctx.pricing);
  const settled = await ctx.budget.settle(key, charge);
  ctx.writer.append('budget', {
    op: 'settle',
    attempt_id: key,
    accounts: settled.accounts,
    nanos: settled.committedNanos,
    basis: settled.basis,
    state: settled.state,
  });
  ctx.charge(settled.committedNanos, charge === null ? null : (answer.usage ?? null));
  assertWithinBound(settled);
  ctx.writer.append('cognition_out', {
    content: answer.content.map(outPart),
    stop_reason: answer.stop_reason,
    usage: answer.usage ?? null,
    cost_nanos: settled.committedNanos,
    provider_msg_id: answer.provider_msg_id,
  });
  return answer;
}

function outPart(
  part: ContentPart,
):
  { type: 'text'; text: string } | { type: 'tool_call'; id: string; name: string; input: unknown } {
  if (part.type === 'tool_call')
    return { type: 'tool_call', id: part.id, name: part.name, input: part.input };
  return { type: 'text', text: part.type === 'text' ? part.text : part.content };
}
