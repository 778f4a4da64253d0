/**
 * Not a turn phase: a finished thread's result as a wait answers it.
 */
import type { ThreadResult } from './thread-result.js';

/**
 * One thread as a wait answers it (THREADS.md §11): `{thread_id, status,
 * outputs?, summary?, error?, cost}`. A limit shows as status `error` with
 * the limit named in `error.details.limit`. Pure.
 */
export function waitEntry(result: ThreadResult): Record<string, unknown> {
  return {
    thread_id: result.thread_id,
    status: result.status,
    ...(result.outputs === undefined ? {} : { outputs: result.outputs }),
    ...(result.summary === undefined ? {} : { summary: result.summary }),
    ...(result.error === undefined ? {} : { error: result.error }),
    cost: result.cost,
  };
}
