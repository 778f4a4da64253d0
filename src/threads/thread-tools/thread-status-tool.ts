import { z } from 'zod';
import { loadTrustStore } from '../../integrity/index.js';
import { trustStores } from '../../items/index.js';
import { redactJson } from '../transcript/index.js';
import { showThread } from '../control/index.js';
import { parseOperationInput, type OperationContext } from '../../ops/index.js';
import { requireReachable } from '../store/thread-reach.js';

const ID = 'rye/agent/threads/thread_status';

export const threadStatusParams = z.strictObject({
  thread_id: z.string().min(1).max(200).describe('the thread to report on'),
});

/**
 * `rye/agent/threads/thread_status {thread_id}`: the thread's signed record,
 * verified against the trusted keys, with the registry's status (a `running`
 * thread whose owner died reads `interrupted`). The record holds no secret
 * (its token is only `{jti, exp}`); tokens are redacted anyway.
 *
 * @throws RyeError OPERATION_INPUT_INVALID, THREAD_ID_INVALID, THREAD_NOT_FOUND,
 *   THREAD_RECORD_INVALID, CAPABILITY_DENIED (not a descendant of the calling thread)
 */
export async function threadStatusTool(
  ctx: OperationContext,
  params: unknown,
  caller?: string,
): Promise<unknown> {
  const { thread_id } = parseOperationInput('execute', threadStatusParams, params);
  // Reach first: a thread outside the subtree gets the same answer whether it exists or not.
  requireReachable(ctx.spaces.project, ID, thread_id, caller);
  const { trust } = await loadTrustStore(trustStores(ctx.spaces));
  const { record, row } = await showThread(ctx.spaces.project, thread_id, trust);
  const status = row?.status ?? record.status;
  return JSON.parse(redactJson(JSON.stringify({ thread_id: record.thread_id, status, record })));
}
