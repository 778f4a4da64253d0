import { Command } from 'commander';
import { RyeError } from '../../errors/index.js';
import type { TrustSet } from '../../integrity/index.js';
import type { ThreadOutcome } from '../../threads/outcome/index.js';
import {
  contextOf,
  withCommonOptions,
  type CliIo,
  type CommandContext,
  type CommonOptions,
} from '../context.js';
import { emit } from '../report.js';
import type { Runner } from '../runner.js';

type CancelOptions = CommonOptions & { reason?: string };
type WaitOptions = CommonOptions & { failFast?: boolean; timeout?: string };
type TailOptions = CommonOptions & { follow?: boolean };
type TrustOf = (ctx: CommandContext) => Promise<TrustSet>;

const ACTIONS = {
  cancelled: 'its owner stopped it',
  sealed: 'it had no live owner: sealed cancelled here',
  already_finished: 'it had already ended; nothing to do',
  finished_first: 'it ended on its own before the cancel took effect',
} as const;

/** `rye thread cancel|wait|tail`: thread control across processes (docs/threads.md). */
export function addThreadControl(thread: Command, io: CliIo, run: Runner, trustOf: TrustOf): void {
  thread.addCommand(
    withCommonOptions(new Command('cancel'))
      .description('cancel a thread from any process; a finished thread is left as it is')
      .argument('<id>', 'thread id')
      .option('--reason <text>', 'why (recorded in the transcript)', 'cancelled by the operator')
      .action((id: string, options: CancelOptions) =>
        run(options, async () => {
          const ctx = contextOf(options, io);
          const { cancelThread, parseCancelReason } =
            await import('../../threads/control/index.js');
          const reason = parseCancelReason(options.reason ?? 'cancelled by the operator');
          const outcome = await cancelThread({
            projectRoot: ctx.spaces.project,
            threadId: id,
            reason,
            signer: await signerOf(ctx),
            trust: await trustOf(ctx),
          });
          emit(ctx, { ok: true, ...outcome }, [
            `thread ${outcome.thread_id}: ${outcome.status} (${ACTIONS[outcome.action]})`,
            costLine(outcome),
          ]);
          return 0;
        }),
      ),
  );
  thread.addCommand(
    withCommonOptions(new Command('wait'))
      .description('wait for threads to end (any process); exit 0 when all completed')
      .argument('<ids...>', 'thread ids')
      .option(
        '--fail-fast',
        'on the first failed, error, budget_denied or killed: cancel the others',
      )
      .option('--timeout <s>', 'stop waiting after this many seconds (cancels nothing)')
      .action((ids: string[], options: WaitOptions) =>
        run(options, async () => {
          const ctx = contextOf(options, io);
          const { waitThreads } = await import('../../threads/control/index.js');
          const timeoutMs = options.timeout === undefined ? undefined : secondsOf(options.timeout);
          const result = await waitThreads({
            projectRoot: ctx.spaces.project,
            threadIds: ids,
            failFast: options.failFast === true,
            ...(timeoutMs === undefined ? {} : { timeoutMs }),
            trust: await trustOf(ctx),
            signer: await signerOf(ctx),
          });
          const ok =
            result.pending.length === 0 && result.threads.every((t) => t.status === 'completed');
          emit(ctx, { ok, ...result }, [
            ...result.threads.flatMap((t) => [
              `thread ${t.thread_id}: ${t.status}`,
              ...(t.summary === undefined ? [] : [`  ${t.summary}`]),
              ...(t.outputs === undefined ? [] : [`  outputs: ${JSON.stringify(t.outputs)}`]),
              ...(t.error === undefined ? [] : [`  error ${t.error.code}: ${t.error.message}`]),
              `  ${costLine(t)}`,
            ]),
            ...result.pending.map((id) => `thread ${id}: still running (pending)`),
          ]);
          return ok ? 0 : 1;
        }),
      ),
  );
  thread.addCommand(
    withCommonOptions(new Command('tail'))
      .description("print a thread's verified transcript events, one line each (--json: JSONL)")
      .argument('<id>', 'thread id')
      .option('-f, --follow', 'keep printing new events until the thread ends')
      .action((id: string, options: TailOptions) =>
        run(options, async () => {
          const ctx = contextOf(options, io);
          const { tailCommand } = await import('./thread-tail.js');
          return tailCommand(ctx, id, options.follow === true, await trustOf(ctx));
        }),
      ),
  );
}

async function signerOf(ctx: CommandContext) {
  const { readSigner } = await import('../../integrity/index.js');
  const { keyDir } = await import('../../items/index.js');
  return readSigner(keyDir(ctx.spaces));
}

function secondsOf(value: string): number {
  if (!/^\d{1,7}(\.\d{1,3})?$/.test(value))
    throw new RyeError(
      'USAGE_INVALID_ARGUMENT',
      `Cannot use --timeout ${value.slice(0, 32)}: give seconds, e.g. 30 or 0.5`,
      { timeout: value.slice(0, 32) },
    );
  return Math.round(Number(value) * 1000);
}

function costLine(t: ThreadOutcome): string {
  const c = t.cost;
  return `cost: ${c.turns} turns, ${c.tokens_in} tokens in, ${c.tokens_out} out, ${c.tool_calls} tool calls, $${c.spend_usd}`;
}
