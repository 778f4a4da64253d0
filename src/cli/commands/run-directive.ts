import { exitCodeFor, isIntegrityCode, isRyeError, type ErrorCode } from '../../errors/index.js';
import type { ThreadResult } from '../../threads/loop/index.js';
import { refuseUnderThreadToken } from '../authority.js';
import type { CommandContext } from '../context.js';
import { emit, progressLine } from '../report.js';
import { threadInterrupts } from '../thread-interrupts.js';

export interface RunDirectiveOptions {
  readonly caps?: string;
  readonly sandbox?: boolean;
  readonly limit: readonly string[];
}

/**
 * `rye execute directive <id> --inputs …`: run the directive as a thread
 * against its provider (runRootThread: everything that can be refused without
 * a provider is refused before anything is written). Exit 0 when the thread
 * completed, 1 when it ended in error or at a limit, 3 when it ended on an
 * integrity refusal.
 *
 * @throws RyeError PROVIDER_AUTH_MISSING (naming the variable), BUDGET_UNPRICED_MODEL,
 *   and the planning codes of planDirectiveOperation
 */
export async function runDirectiveCommand(
  ctx: CommandContext,
  directiveId: string,
  inputs: unknown,
  options: RunDirectiveOptions,
): Promise<number> {
  const { runRootThread, threadAnswer } = await import('../../threads/root/index.js');
  const { operationContext } = await import('../operation-context.js');
  refuseUnderThreadToken(ctx, directiveId);
  const { killRunningTools } = await import('../../executor/index.js');
  const interrupts = threadInterrupts(killRunningTools, ctx.io.stderr);
  let result: ThreadResult;
  try {
    const ops = {
      ...(await operationContext(ctx, options.caps, options)),
      signal: interrupts.signal,
    };
    result = await runRootThread(ops, directiveId, inputs, {
      limits: options.limit,
      ...(ctx.json ? {} : { onProgress: progressLine(ctx) }),
    });
  } catch (error) {
    if (!ctx.json || !isRyeError(error)) throw error;
    // A refusal prints the operation's error shape too, as MCP answers it.
    const { errorResult } = await import('../../ops/index.js');
    emit(ctx, { ok: false, ...errorResult(error, directiveId) }, []);
    return exitCodeFor(error.code);
  } finally {
    interrupts.dispose();
  }
  // --json prints what MCP `execute` answers (THREADS.md §14), with the contract's `ok`.
  const code = interrupts.exitCode() ?? exitCodeOf(result);
  emit(ctx, { ok: code === 0, ...threadAnswer(directiveId, result) }, resultLines(result));
  return code;
}

/**
 * `rye execute directive <id> --spawn`: start the thread in a detached worker
 * and print its id; the worker keeps running after this command exits.
 */
export async function spawnDirectiveCommand(
  ctx: CommandContext,
  directiveId: string,
  inputs: unknown,
  options: RunDirectiveOptions,
): Promise<number> {
  const { spawnRootThread } = await import('../../threads/root/index.js');
  const { operationContext } = await import('../operation-context.js');
  refuseUnderThreadToken(ctx, directiveId);
  const { thread_id } = await spawnRootThread(
    await operationContext(ctx, options.caps, options),
    directiveId,
    inputs,
    { limits: options.limit },
  );
  emit(
    ctx,
    {
      ok: true,
      status: 'success',
      item_id: directiveId,
      data: { thread_id, status: 'running' },
      thread_id,
    },
    [`thread ${thread_id}: running (detached; rye thread show ${thread_id})`],
  );
  return 0;
}

/** 0 completed; 3 an integrity refusal ended it; 1 anything else. */
export function exitCodeOf(result: ThreadResult): number {
  if (result.status === 'completed') return 0;
  const code = result.error?.code as ErrorCode | undefined;
  return code !== undefined && isKnownIntegrity(code) ? 3 : 1;
}

function isKnownIntegrity(code: ErrorCode): boolean {
  try {
    return isIntegrityCode(code);
  } catch {
    return false;
  }
}

export function resultLines(result: ThreadResult): string[] {
  const c = result.cost;
  return [
    `thread ${result.thread_id}: ${result.status}`,
    // A <success> message may span lines (the seed's does): one printed line each, unindented.
    ...(result.summary ?? '')
      .split(/\r?\n/)
      .map((line) => line.trim())
      .filter((line) => line !== ''),
    ...(result.outputs === undefined ? [] : [`outputs: ${JSON.stringify(result.outputs)}`]),
    ...(result.error === undefined ? [] : [`error ${result.error.code}: ${result.error.message}`]),
    `cost: ${c.turns} turns, ${c.tokens_in} tokens in, ${c.tokens_out} out, ${c.tool_calls} tool calls, $${c.spend_usd}`,
  ];
}
