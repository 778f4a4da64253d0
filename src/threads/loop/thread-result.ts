/**
 * The runner's answer once finalized (finalize.ts): a finished thread's
 * result and its public cost block.
 */
import { formatUsd } from '../budget/index.js';
import type { ThreadStatus } from '../store/index.js';
import type { ErrorInfo, ThreadCost } from '../transcript/index.js';

/** What a finished thread answers (`--json`, MCP): THREADS.md §14. */
export interface ThreadResult {
  readonly ok: boolean;
  readonly status: ThreadStatus;
  readonly thread_id: string;
  readonly outputs?: Readonly<Record<string, unknown>>;
  readonly summary?: string;
  readonly error?: ErrorInfo;
  readonly cost: {
    readonly turns: number;
    readonly tokens_in: number;
    readonly tokens_out: number;
    readonly spend_usd: string;
    readonly tool_calls: number;
  };
}

/** The public cost block from the running totals. Pure. */
export function publicCost(cost: ThreadCost): ThreadResult['cost'] {
  return {
    turns: cost.turns,
    tokens_in: cost.tokens_in,
    tokens_out: cost.tokens_out,
    spend_usd: formatUsd(cost.spend_nanos),
    tool_calls: cost.tool_calls,
  };
}
