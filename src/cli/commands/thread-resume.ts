import { resolve } from 'node:path';
import type { TrustSet } from '../../integrity/index.js';
import { readTextFile } from '../../platform/index.js';
import type { CommandContext } from '../context.js';
import { emit, progressLine } from '../report.js';
import { threadInterrupts } from '../thread-interrupts.js';
import { exitCodeOf, resultLines } from './run-directive.js';

/**
 * `rye thread resume <id> --message TEXT|@file [--limit k=v]…`: THREADS.md §10
 * through resumeThread, with the provider client built from the re-admitted
 * plan. `--limit` sets the thread's limits (the operator's decision, signed into
 * the transcript); its grammar is execute's, checked before anything is read.
 * Exit codes as `rye execute directive`.
 *
 * @throws RyeError USAGE_INVALID_ARGUMENT (a bad --limit), THREAD_LOCKED,
 *   THREAD_RECORD_INVALID, THREAD_RESUME_PINNED, TRANSCRIPT_TAMPERED,
 *   THREAD_RESUME_NO_USAGE, PROVIDER_AUTH_MISSING
 */
export async function resumeCommand(
  ctx: CommandContext,
  threadId: string,
  options: {
    message: string;
    caps?: string;
    rebase?: boolean;
    sandbox?: boolean;
    limit?: readonly string[];
  },
  trust: TrustSet,
): Promise<number> {
  const { parseLimitOverrides } = await import('../../threads/directive/index.js');
  const limits = parseLimitOverrides(options.limit ?? []);
  const { resumeThread } = await import('../../threads/control/index.js');
  const { createProviderClient, selectProvider } = await import('../../threads/providers/index.js');
  const { readSigner } = await import('../../integrity/index.js');
  const { keyDir } = await import('../../items/index.js');
  const { operationContext } = await import('../operation-context.js');
  const message = options.message.startsWith('@')
    ? await readTextFile(resolve(ctx.io.cwd, options.message.slice(1)), 1024 * 1024)
    : options.message;
  const { killRunningTools } = await import('../../executor/index.js');
  const interrupts = threadInterrupts(killRunningTools, ctx.io.stderr);
  const result = await resumeThread({
    projectRoot: ctx.spaces.project,
    ops: await operationContext(ctx, options.caps, options),
    threadId,
    message,
    signer: await readSigner(keyDir(ctx.spaces)),
    trust,
    client: async (plan) => {
      const selection = await selectProvider(
        ctx.spaces,
        { provider: plan.model?.provider, id: plan.model?.model },
        { env: ctx.io.env },
      );
      return createProviderClient(selection, { env: ctx.io.env });
    },
    signal: interrupts.signal,
    ...(options.rebase === true ? { rebase: true } : {}),
    ...(Object.keys(limits).length === 0 ? {} : { limits }),
    ...(ctx.json ? {} : { onProgress: progressLine(ctx) }),
  }).finally(() => interrupts.dispose());
  emit(ctx, result, resultLines(result));
  return interrupts.exitCode() ?? exitCodeOf(result);
}
