/**
 * The runner's limits, pure: which limit a provider call would pass, and
 * the error a thread ends with at one. run-limits.ts applies them to a run.
 */
import { RyeError } from '../../errors/index.js';
import type { ResolvedLimits } from '../directive/index.js';
import type { ThreadCost } from '../transcript/index.js';

/** A limit the thread reached: which, where it stands, and its maximum. */
export interface LimitHit {
  readonly limit:
    'turns' | 'tokens' | 'duration_seconds' | 'tool_calls' | 'spend' | 'spawns' | 'depth';
  readonly current: number;
  readonly max: number;
}

/**
 * The checks before each provider call (THREADS.md §5), in its order:
 * deadline, turns, tokens, tool_calls. `0` means unlimited; the spend limit
 * is the ledger's to enforce by reservation. Pure.
 */
export function limitBeforeCall(
  limits: ResolvedLimits,
  cost: ThreadCost,
  startedMs: number,
  nowMs: number,
): LimitHit | null {
  const elapsed = Math.floor((nowMs - startedMs) / 1000);
  if (limits.duration_seconds !== 0 && nowMs - startedMs >= limits.duration_seconds * 1000)
    return { limit: 'duration_seconds', current: elapsed, max: limits.duration_seconds };
  if (limits.turns !== 0 && cost.turns >= limits.turns)
    return { limit: 'turns', current: cost.turns, max: limits.turns };
  const tokens = cost.tokens_in + cost.tokens_out;
  if (limits.tokens !== 0 && tokens >= limits.tokens)
    return { limit: 'tokens', current: tokens, max: limits.tokens };
  if (limits.tool_calls !== 0 && cost.tool_calls >= limits.tool_calls)
    return { limit: 'tool_calls', current: cost.tool_calls, max: limits.tool_calls };
  return null;
}

/** The error a thread ends with at a limit. */
export function limitError(hit: LimitHit): RyeError {
  return new RyeError(
    'THREAD_LIMIT_EXCEEDED',
    `Cannot continue the thread: limit ${hit.limit} reached (${hit.current} of ${hit.max})`,
    { limit: hit.limit, current: hit.current, max: hit.max },
  );
}
