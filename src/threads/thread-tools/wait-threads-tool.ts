import { z } from 'zod';
import { RyeError } from '../../errors/index.js';
import type { ThreadResult } from '../loop/thread-result.js';
import type { OperationContext } from '../../ops/index.js';
import { parseOperationInput } from '../../ops/index.js';
import { requireCaller, requireDescendant } from './descendant.js';
import { waitEntry } from '../loop/wait-entry.js';

export const waitThreadsSchema = z.strictObject({
  thread_ids: z.array(z.string().min(1).max(128)).min(1).max(64),
  fail_fast: z.boolean().optional(),
  timeout_s: z.number().positive().max(86_400).optional(),
});

/** Statuses that make `fail_fast` cancel the running siblings (THREADS.md §11). */
export const FAIL_FAST_STATUSES: ReadonlySet<string> = new Set([
  'failed',
  'error',
  'budget_denied',
  'killed',
]);

export interface WaitAnswer {
  /** Every finished thread, in the order asked. */
  readonly threads: Record<string, unknown>[];
  /** The ids still running when the wait ended (a timeout cancels nothing). */
  readonly pending: string[];
}

/**
 * `rye/agent/threads/wait_threads{thread_ids, fail_fast, timeout_s}`: wait
 * for the caller's own descendants on their completion events (no polling).
 * `fail_fast`: on the first one ending failed, error, budget_denied or
 * killed, cancel the others still running (reason `sibling_failed`, which
 * cascades to their descendants and tool processes), wait for them to end,
 * and return every finished thread's outputs. `timeout_s` defaults to what is
 * left of the caller's duration.
 *
 * @throws RyeError OPERATION_INPUT_INVALID, CAPABILITY_DENIED (any id not a
 *   descendant; nothing is waited on), THREAD_CANCELLED (the caller was)
 */
export async function waitThreads(ctx: OperationContext, parameters: unknown): Promise<WaitAnswer> {
  const input = parseOperationInput('wait_threads', waitThreadsSchema, parameters);
  const caller = requireCaller(ctx, 'wait_threads');
  const ids = [...new Set(input.thread_ids)];
  const handles = ids.map((id) => requireDescendant(caller, id, 'wait for'));
  const finished = new Map<string, ThreadResult>();
  for (const h of handles) if (h.result !== undefined) finished.set(h.threadId, h.result);
  let failing = input.fail_fast === true && [...finished.values()].some(isFailing);
  const timeoutMs = input.timeout_s === undefined ? caller.remainingMs() : input.timeout_s * 1000;
  const stop = stopSignal(timeoutMs, caller.signal);
  try {
    while (finished.size < handles.length) {
      const running = handles.filter((h) => !finished.has(h.threadId));
      if (failing) for (const h of running) h.cancel('sibling_failed');
      const next = await Promise.race([...running.map((h) => h.done), stop.promise]);
      if (next === 'timeout') break;
      if (next === 'aborted')
        throw new RyeError(
          'THREAD_CANCELLED',
          `Cannot finish waiting: thread ${caller.threadId} was cancelled`,
          { reason: 'caller_cancelled' },
        );
      finished.set(next.thread_id, next);
      if (input.fail_fast === true && isFailing(next)) failing = true;
    }
  } finally {
    stop.clear();
  }
  return {
    threads: handles.flatMap((h) => {
      const result = finished.get(h.threadId);
      return result === undefined ? [] : [waitEntry(result)];
    }),
    pending: handles.filter((h) => !finished.has(h.threadId)).map((h) => h.threadId),
  };
}

function isFailing(result: ThreadResult): boolean {
  return FAIL_FAST_STATUSES.has(result.status);
}

/** One promise for "the time is up" or "the caller was cancelled", and its cleanup. */
function stopSignal(
  timeoutMs: number | undefined,
  signal: AbortSignal,
): { promise: Promise<'timeout' | 'aborted'>; clear: () => void } {
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const promise = new Promise<'timeout' | 'aborted'>((resolve) => {
    if (timeoutMs !== undefined) timer = setTimeout(() => resolve('timeout'), timeoutMs);
    onAbort = () => resolve('aborted');
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  return {
    promise,
    clear: () => {
      if (timer !== undefined) clearTimeout(timer);
      if (onAbort !== undefined) signal.removeEventListener('abort', onAbort);
    },
  };
}
