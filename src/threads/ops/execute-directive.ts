import type { OperationContext } from './context.js';
import { planDirectiveOperation } from './plan-directive.js';
import type { ExecuteInput, OperationResult } from './schemas.js';

/**
 * `execute` on a directive (THREADS.md §13): `dry_run` answers with the plan;
 * `thread: "wait"` (the default) runs it as a root thread under the call's
 * authority and answers with its outputs; `thread: "spawn"` starts it in a
 * detached worker and answers with its id at once. The runner is loaded on
 * use: it imports this module's domain, and plans never pay for it.
 *
 * @throws RyeError the planning and admission codes, THREAD_SPAWN_FAILED
 */
export async function executeDirective(
  ctx: OperationContext,
  input: ExecuteInput,
): Promise<OperationResult> {
  const inputs = input.inputs ?? {};
  if (input.dry_run === true) {
    const plan = await planDirectiveOperation(ctx, input.item_id, inputs, { toolSandboxes: true });
    return { status: 'success', item_id: input.item_id, data: plan };
  }
  const root = await import('../root/index.js');
  if (input.thread === 'spawn') {
    const { thread_id } = await root.spawnRootThread(ctx, input.item_id, inputs);
    return {
      status: 'success',
      item_id: input.item_id,
      data: { thread_id, status: 'running' },
      thread_id,
    };
  }
  const result = await root.runRootThread(ctx, input.item_id, inputs, {
    ...(ctx.onProgress === undefined ? {} : { onProgress: ctx.onProgress }),
  });
  return root.threadAnswer(input.item_id, result);
}
