import {
  costOf,
  formatUsd,
  inputRate,
  parsePricing,
  parseUsd,
  planOutputCap,
  type PricingStrings,
} from '../budget/index.js';
import type { ToolDefinition } from '../conversation/index.js';
import type { ResolvedLimits } from '../directive/index.js';

/** The resolved model as a plan shows it. */
export interface ModelForPlan {
  readonly provider: string;
  readonly model: string;
  /** `host[:port]` the thread would talk to. */
  readonly host: string;
  readonly context_window: number;
  readonly output_limit: number;
  /** USD per million tokens, as the provider data writes them. */
  readonly pricing: PricingStrings;
}

/** What the thread can cost at most, in USD decimal strings (THREADS.md §6 reservation). */
export interface WorstCase {
  /** `max_tokens` the first request would carry (the output cap under the spend limit). */
  readonly first_request_max_tokens: number;
  /** The reservation of the first request: its body as the input bound, plus the output cap. */
  readonly first_request_usd: string;
  /** One request at the full context window and the output limit. */
  readonly per_turn_usd: string;
  /** `turns` such requests, or unbounded when turns are unlimited. */
  readonly turn_budget_usd: string | null;
  /** What the ledger lets the thread spend: the spend limit, or null when unlimited. */
  readonly spend_limit_usd: string | null;
  /**
   * The whole tree the thread may start (THREADS.md §6, §11): every
   * descendant's reservation also debits this thread's account, so the tree
   * can never spend more than its spend limit; without one, at most
   * `max_threads` threads (children's `spawns` and `depth` are clamped to
   * these) each spending at most the turn budget. Null where a limit is 0
   * (unlimited).
   */
  readonly tree: {
    readonly max_threads: number | null;
    readonly worst_usd: string | null;
  };
}

/** Threads in a tree of fan-out `spawns` and `depth` levels below the root; null if unbounded. */
function maxThreads(spawns: number, depth: number): number | null {
  if (spawns === 0 || depth === 0) return null;
  let total = 1;
  let level = 1;
  for (let d = 1; d <= depth; d++) {
    level *= spawns;
    total += level;
    if (!Number.isSafeInteger(total)) return null;
  }
  return total;
}

/**
 * Price the worst case of a plan with the ledger's own rules: the first
 * request's reservation (its body's bytes bound its input tokens) with the
 * output cap the spend limit allows, one full-window turn, and the whole turn
 * budget. Pure.
 *
 * @throws RyeError BUDGET_UNPRICED_MODEL, BUDGET_AMOUNT_INVALID
 */
export function worstCaseOf(input: {
  readonly model: ModelForPlan;
  readonly limits: ResolvedLimits;
  readonly system_prompt: string;
  readonly first_message: string;
  readonly tools: readonly ToolDefinition[];
}): WorstCase {
  const { model, limits } = input;
  const pricing = parsePricing(model.pricing, model.model);
  const spend = parseUsd(limits.spend, 'spend');
  const headroom = spend === 0 ? null : spend;
  const body = JSON.stringify({
    system: input.system_prompt,
    messages: [{ role: 'user', content: input.first_message }],
    tools: input.tools,
  });
  const first = planOutputCap({
    bound: {
      contextWindow: model.context_window,
      requestBodyBytes: Buffer.byteLength(body),
      hasNonTextParts: false,
    },
    outputLimit: model.output_limit,
    pricing,
    headroom,
  });
  const perTurn =
    costOf(model.context_window, inputRate(pricing)) + costOf(model.output_limit, pricing.output);
  return {
    first_request_max_tokens: first.ok ? first.maxTokens : 0,
    first_request_usd: first.ok ? formatUsd(first.worstNanos) : formatUsd(0),
    per_turn_usd: formatUsd(perTurn),
    turn_budget_usd: limits.turns === 0 ? null : formatUsd(perTurn * limits.turns),
    spend_limit_usd: headroom === null ? null : formatUsd(headroom),
    tree: treeWorstCase(limits, headroom, limits.turns === 0 ? null : perTurn * limits.turns),
  };
}

function treeWorstCase(
  limits: ResolvedLimits,
  spendLimit: number | null,
  turnBudget: number | null,
): WorstCase['tree'] {
  const threads = maxThreads(limits.spawns, limits.depth);
  const byTurns =
    threads === null || turnBudget === null || !Number.isSafeInteger(threads * turnBudget)
      ? null
      : threads * turnBudget;
  const worst =
    spendLimit === null ? byTurns : byTurns === null ? spendLimit : Math.min(spendLimit, byTurns);
  return { max_threads: threads, worst_usd: worst === null ? null : formatUsd(worst) };
}
