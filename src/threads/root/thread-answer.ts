import { hintFor, type ErrorCode } from '../../errors/index.js';
import type { ThreadResult } from '../loop/index.js';
import type { OperationResult } from '../../ops/index.js';

/**
 * A finished thread as an operation result (THREADS.md §13, §14): the one
 * shape MCP `execute` answers and `rye execute directive --json` prints.
 * `completed` is `{status: "success", item_id, data: outputs, thread_id,
 * cost}` (and the `summary` when the directive renders one). Any other
 * terminal status is the error shape with `thread_id` and `cost` beside it;
 * `error.details` holds the error's own details, the thread's status, and
 * the outputs a `failed` outcome returned. Pure.
 */
export function threadAnswer(directiveId: string, result: ThreadResult): OperationResult {
  if (result.status === 'completed')
    return {
      status: 'success',
      item_id: directiveId,
      data: result.outputs ?? {},
      thread_id: result.thread_id,
      cost: result.cost,
      ...(result.summary === undefined ? {} : { summary: result.summary }),
    } as OperationResult;
  const code = result.error?.code ?? 'THREAD_FAILED';
  const own = result.error?.details;
  return {
    status: 'error',
    item_id: directiveId,
    thread_id: result.thread_id,
    cost: result.cost,
    error: {
      code,
      message:
        result.error?.message ??
        `Thread ${result.thread_id} ended ${result.status}${result.summary === undefined ? '' : `: ${result.summary}`}`,
      ...hintOf(code),
      details: {
        ...(typeof own === 'object' && own !== null && !Array.isArray(own) ? own : {}),
        thread_status: result.status,
        ...(result.outputs === undefined ? {} : { outputs: result.outputs }),
        ...(result.summary === undefined ? {} : { summary: result.summary }),
      },
    },
  } as OperationResult;
}

function hintOf(code: string): { hint?: string } {
  try {
    const hint = hintFor(code as ErrorCode);
    return hint === undefined ? {} : { hint };
  } catch {
    return {};
  }
}
