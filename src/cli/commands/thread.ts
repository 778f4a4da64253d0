import { Command } from 'commander';
import { RyeError, isRyeError } from '../../errors/index.js';
import { formatUsd } from '../../threads/budget/index.js';
import { THREAD_STATUSES, type ThreadRow, type ThreadStatus } from '../../threads/store/index.js';
import {
  contextOf,
  withCommonOptions,
  type CliIo,
  type CommandContext,
  type CommonOptions,
} from '../context.js';
import { CAPS_OPTION_HELP } from '../authority.js';
import { emit } from '../report.js';
import type { Runner } from '../runner.js';
import { addThreadControl } from './thread-control.js';
import { addThreadViews } from './thread-tree.js';

type ListOptions = CommonOptions & { status?: string; tree?: string };
type ResumeOptions = CommonOptions & {
  message: string;
  caps?: string;
  rebase?: boolean;
  limit: string[];
};

/** `rye thread list|show|verify|resume|cancel|wait|tail`: the index, records, control. */
export function threadCommand(io: CliIo, run: Runner): Command {
  const thread = new Command('thread').description(
    'threads under .ai/threads/: list, show, verify, resume, cancel, wait for and tail them',
  );
  thread.addCommand(
    withCommonOptions(new Command('list'))
      .description(
        'list threads, oldest first (running threads whose process died become interrupted)',
      )
      .option('--status <status>', `only this status (${THREAD_STATUSES.join(', ')})`)
      .option('--tree <id>', 'only threads of this tree')
      .action((options: ListOptions) =>
        run(options, async () => {
          const ctx = contextOf(options, io);
          const { listThreads } = await import('../../threads/control/index.js');
          const threads = listThreads(ctx.spaces.project, {
            ...(options.status === undefined ? {} : { status: statusOf(options.status) }),
            ...(options.tree === undefined ? {} : { tree: options.tree }),
          });
          const lines =
            threads.length === 0
              ? ['No threads.']
              : threads.map(
                  (t) =>
                    `${t.threadId}  ${t.status.padEnd(13)} ${t.directiveId}  ${t.turns} turns  $${usd(t.spendNanos)}`,
                );
          emit(ctx, { ok: true, threads: threads.map(rowJson) }, lines);
          return 0;
        }),
      ),
  );
  thread.addCommand(
    withCommonOptions(new Command('show'))
      .description("print a thread's signed record (verified) and its registry row")
      .argument('<id>', 'thread id')
      .action((id: string, options: CommonOptions) =>
        run(options, async () => {
          const ctx = contextOf(options, io);
          const { showThread } = await import('../../threads/control/index.js');
          const shown = await showThread(
            ctx.spaces.project,
            id,
            await trustOf(ctx),
            await ownFingerprint(ctx),
          );
          const r = shown.record;
          const row = shown.row === null ? null : rowJson(shown.row);
          emit(ctx, { ok: true, record: r, row, foreign: shown.foreign }, [
            `thread ${r.thread_id}: ${r.status}${shown.foreign ? ' (foreign: not signed by your key; nothing continues, cancels or waits on it)' : ''}`,
            `directive ${r.directive.id} (${r.directive.space}, sha256 ${r.directive.content_sha256.slice(0, 16)}…)`,
            `created ${r.created_at}, updated ${r.updated_at}`,
            `cost: ${r.cost.turns} turns, ${r.cost.tokens_in} in / ${r.cost.tokens_out} out, ${r.cost.tool_calls} tool calls, $${usd(r.cost.spend_nanos)}`,
            `caps: ${r.caps.join(', ') || '(none)'}`,
            ...(r.error === undefined ? [] : [`error ${r.error.code}: ${r.error.message}`]),
            ...(r.outputs === undefined ? [] : [`outputs: ${JSON.stringify(r.outputs)}`]),
          ]);
          return 0;
        }),
      ),
  );
  thread.addCommand(
    withCommonOptions(new Command('verify'))
      .description(
        'verify a thread offline: its signed record, every chain link, checkpoint and artifact',
      )
      .argument('<id>', 'thread id')
      .action((id: string, options: CommonOptions) =>
        run(options, async () => {
          const ctx = contextOf(options, io);
          const { verifyThread } = await import('../../threads/control/index.js');
          const v = await verifyThread(
            ctx.spaces.project,
            id,
            await trustOf(ctx),
            await macOf(ctx),
          );
          emit(ctx, { ok: true, ...v }, [
            `thread ${v.thread_id}: ok (${v.status}${v.foreign ? ', someone else’s: signed by another trusted key' : ''}; ${v.events} events, last checkpoint at seq ${v.last_checkpoint_seq}, ${v.unsealed} unsealed${v.unverified > 0 ? `, ${v.unverified} after it not read (someone else's thread, or no key of yours)` : ''}${v.torn_tail_bytes > 0 ? `, torn tail of ${v.torn_tail_bytes} bytes` : ''})`,
            ...(v.ledger === null
              ? []
              : [
                  v.ledger.mismatch
                    ? `ledger: MISMATCH: $${v.ledger.ledger_usd} committed, the transcripts $${v.ledger.transcript_usd} (resume raises a lower ledger to the transcripts)`
                    : `ledger: $${v.ledger.ledger_usd} committed, as the transcripts say`,
                ]),
          ]);
          return 0;
        }),
      ),
  );
  thread.addCommand(
    withCommonOptions(new Command('resume'))
      .description(
        'continue a thread with a new message, on the same transcript, with cumulative cost',
      )
      .argument('<id>', 'thread id')
      .requiredOption('--message <text>', 'the message to continue with, or @file')
      .option(
        '--rebase',
        'when the directive changed: end this thread "continued" and run a successor under the new one',
      )
      .option('--caps <caps>', CAPS_OPTION_HELP)
      .option(
        '--limit <k=v>',
        "set a limit of this thread from now on, higher or lower than the directive's (turns, tokens, spend, spawns, depth, duration_seconds, tool_calls); signed into the transcript (the operator only)",
        (value: string, previous: string[]) => [...previous, value],
        [] as string[],
      )
      .option(
        '--no-sandbox',
        "run the thread's tools without the bwrap sandbox (the operator only)",
      )
      .action((id: string, options: ResumeOptions) =>
        run(options, async () => {
          const ctx = contextOf(options, io);
          const { resumeCommand } = await import('./thread-resume.js');
          return resumeCommand(ctx, id, options, await trustOf(ctx));
        }),
      ),
  );
  addThreadControl(thread, io, run, trustOf);
  addThreadViews(thread, io, run, trustOf);
  return thread;
}

function statusOf(value: string): ThreadStatus {
  if ((THREAD_STATUSES as readonly string[]).includes(value)) return value as ThreadStatus;
  throw new RyeError(
    'USAGE_INVALID_ARGUMENT',
    `Cannot filter by status ${value.slice(0, 32)}: use one of ${THREAD_STATUSES.join(', ')}`,
    { status: value.slice(0, 32) },
  );
}

/** Your key's fingerprint, or undefined when you have no key. */
async function ownFingerprint(ctx: CommandContext): Promise<string | undefined> {
  const { readPublicKeyFile } = await import('../../integrity/index.js');
  const { keyDir } = await import('../../items/index.js');
  try {
    return (await readPublicKeyFile(keyDir(ctx.spaces))).fingerprint;
  } catch (error) {
    if (isRyeError(error, 'KEY_NOT_FOUND')) return undefined;
    throw error;
  }
}

async function macOf(ctx: CommandContext) {
  const { userMacKeyring } = await import('../../threads/store/index.js');
  return userMacKeyring(ctx.spaces);
}

async function trustOf(ctx: CommandContext) {
  const { loadTrustStore } = await import('../../integrity/index.js');
  const { trustStores } = await import('../../items/index.js');
  return (await loadTrustStore(trustStores(ctx.spaces))).trust;
}

function usd(nanos: number): string {
  return formatUsd(nanos);
}

/** A registry row as JSON, its keys in snake_case (docs/json-output.md). */
function rowJson(row: ThreadRow): Record<string, unknown> {
  return {
    thread_id: row.threadId,
    tree_id: row.treeId,
    parent_id: row.parentId,
    directive_id: row.directiveId,
    status: row.status,
    turns: row.turns,
    tokens_in: row.tokensIn,
    tokens_out: row.tokensOut,
    spend_nanos: row.spendNanos,
    created_ms: row.createdMs,
    updated_ms: row.updatedMs,
  };
}
