import { z } from 'zod';
import type { OperationContext } from '../../ops/index.js';
import { parseOperationInput } from '../../ops/index.js';
import { requireCaller, requireDescendant } from './descendant.js';

export const cancelThreadSchema = z.strictObject({
  thread_id: z.string().min(1).max(128),
  reason: z.string().min(1).max(200).optional(),
});

/**
 * `rye/agent/threads/cancel_thread{thread_id, reason?}`: cancel one of the
 * caller's own descendants (its in-flight request aborted, its tools killed
 * after the grace, its own descendants with it) and answer its final status.
 * A thread that already ended keeps its status.
 *
 * @throws RyeError OPERATION_INPUT_INVALID, CAPABILITY_DENIED (not a descendant)
 */
export async function cancelThread(
  ctx: OperationContext,
  parameters: unknown,
): Promise<{ thread_id: string; status: string }> {
  const input = parseOperationInput('cancel_thread', cancelThreadSchema, parameters);
  const caller = requireCaller(ctx, 'cancel_thread');
  const handle = requireDescendant(caller, input.thread_id, 'cancel');
  handle.cancel(input.reason ?? `cancelled by thread ${caller.threadId}`);
  const result = await handle.done;
  return { thread_id: handle.threadId, status: result.status };
}
