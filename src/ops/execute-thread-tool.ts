import { requireAllowed } from '../capabilities/index.js';
import type { OperationContext } from './context.js';
import type { OperationResult } from './schemas.js';

/** The thread tools' folder in the tool id space (THREADS.md §11). */
export const THREAD_TOOL_PREFIX = 'rye/agent/threads/';

/**
 * Run `toolId` in process when it names a thread tool, before the executor is
 * consulted; undefined when it does not (the executor takes it). The thread
 * runner wired into the context (`ctx.threads`) knows the tools. The operator
 * (no `ctx.thread`) needs `execute` on the tool id, e.g.
 * `rye.execute.tool.rye/agent/threads/*`; a thread's model is implicitly
 * granted the tools on its own descendants, which each handler enforces.
 * `dry_run` checks the grant and runs nothing.
 *
 * @throws RyeError CAPABILITY_DENIED, and the handler's codes
 */
export async function executeThreadTool(
  ctx: OperationContext,
  toolId: string,
  parameters: Record<string, unknown>,
  dryRun: boolean,
): Promise<OperationResult | undefined> {
  if (!toolId.startsWith(THREAD_TOOL_PREFIX) || ctx.threads === undefined) return undefined;
  const handler = await ctx.threads.threadTool(toolId);
  if (handler === undefined) return undefined;
  if (ctx.thread === undefined) requireAllowed(ctx.authority, 'execute', 'tool', toolId);
  if (dryRun) return { status: 'success', item_id: toolId, data: { dry_run: true } };
  const data = await handler(ctx, parameters, ctx.thread);
  return { status: 'success', item_id: toolId, data };
}
