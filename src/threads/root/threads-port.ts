import type {
  ExecuteInput,
  OperationContext,
  OperationResult,
  ThreadsPort,
} from '../../ops/index.js';

/**
 * `execute` on a directive (THREADS.md §13): `dry_run` answers with the plan;
 * `thread: "wait"` (the default) runs it as a root thread under the call's
 * authority and answers with its outputs; `thread: "spawn"` starts it in a
 * detached worker and answers with its id at once. Planning and the runner
 * load on use: a command that runs a tool never pays for them, and plans
 * never pay for the runner.
 *
 * @throws RyeError the planning and admission codes, THREAD_SPAWN_FAILED
 */
async function executeDirective(
  ctx: OperationContext,
  input: ExecuteInput,
): Promise<OperationResult> {
  const inputs = input.inputs ?? {};
  if (input.dry_run === true) {
    const { planDirectiveOperation } = await import('../admission/index.js');
    const plan = await planDirectiveOperation(ctx, input.item_id, inputs, { toolSandboxes: true });
    return { status: 'success', item_id: input.item_id, data: plan };
  }
  if (input.thread === 'spawn') {
    const { spawnRootThread } = await import('./spawn-root.js');
    const { thread_id } = await spawnRootThread(ctx, input.item_id, inputs);
    return {
      status: 'success',
      item_id: input.item_id,
      data: { thread_id, status: 'running' },
      thread_id,
    };
  }
  const { runRootThread } = await import('./run-root.js');
  const { threadAnswer } = await import('./thread-answer.js');
  const result = await runRootThread(ctx, input.item_id, inputs, {
    ...(ctx.onProgress === undefined ? {} : { onProgress: ctx.onProgress }),
  });
  return threadAnswer(input.item_id, result);
}

/**
 * The thread runner as the operations see it: the composition roots (cli,
 * mcp) put it in every operation context they make. Light to import: the
 * runner and the thread tools load on first use.
 */
export const THREADS_PORT: ThreadsPort = {
  executeDirective,
  threadTool: async (toolId) => (await import('../thread-tools/index.js')).threadToolOf(toolId),
};
