import { RyeError, isRyeError } from '../../errors/index.js';
import type { Signer, TrustSet } from '../../integrity/index.js';
import type { DirectiveLimits, DirectiveProgram } from '../../items/index.js';
import { parsePricing } from '../budget/index.js';
import { returnSchemaOf } from '../directive/index.js';
import { systemClock, type Clock } from '../ids/index.js';
import {
  loadOperation,
  planDirectiveOperation,
  type DirectivePlan,
  type OperationContext,
} from '../ops/index.js';
import type { ProviderClient } from '../providers/index.js';
import {
  RegistryDb,
  acquireTreeLock,
  checkThreadDir,
  readThreadRecord,
  registryDbPath,
  threadPaths,
  treeLockPath,
  writeThreadRecord,
} from '../store/index.js';
import {
  readTranscriptBytes,
  rebuildThread,
  repairTranscript,
  resolveArtifacts,
  splitLines,
  verifyTranscript,
  type StoredEvent,
  type ThreadCost,
} from '../transcript/index.js';
import type { ThreadResult } from './thread-result.js';
import { ThreadRun } from './thread-run.js';

export interface ResumeThreadInput {
  readonly projectRoot: string;
  /** The operator's context; the thread runs under its recorded capabilities only. */
  readonly ops: OperationContext;
  readonly threadId: string;
  /** The new user message the thread continues with. */
  readonly message: string;
  /** The user key (re-seals the repair, signs the record and checkpoints). */
  readonly signer: Signer;
  /** Keys the record and checkpoints must verify against. */
  readonly trust: TrustSet;
  /** The provider client for the re-admitted plan (reads the key: PROVIDER_AUTH_MISSING). */
  readonly client: (plan: DirectivePlan) => Promise<ProviderClient>;
  readonly clock?: Clock;
  readonly onProgress?: (line: string) => void;
}

/**
 * Resume a thread (THREADS.md §10): take the tree lock (THREAD_LOCKED),
 * verify the signed record (THREAD_RECORD_INVALID), re-admit the directive
 * and require the same content hash and capability set (THREAD_RESUME_PINNED
 * naming both), get the provider client, verify every chain link and
 * checkpoint (TRANSCRIPT_TAMPERED naming the seq), repair a torn tail and
 * dangling calls and re-seal (persisted), rebuild the conversation and totals,
 * settle attempts a crash left open in the ledger (their reservation is
 * charged; none on record is THREAD_RESUME_NO_USAGE), then append the message
 * and continue the same transcript with cumulative cost and limits.
 */
export async function resumeThread(input: ResumeThreadInput): Promise<ThreadResult> {
  const clock = input.clock ?? systemClock;
  const paths = threadPaths(input.projectRoot, input.threadId);
  checkThreadDir(input.projectRoot, paths);
  const lock = acquireTreeLock(treeLockPath(input.projectRoot, paths.threadId));
  let registry: RegistryDb | undefined;
  let writer: ReturnType<typeof repairTranscript>['writer'] | undefined;
  try {
    const record = await readThreadRecord(paths, input.trust);
    const plan = await planDirectiveOperation(input.ops, record.directive.id, record.inputs, {
      limitOverrides: record.limits as DirectiveLimits,
    });
    const recordedCaps = [...record.caps].sort().join('\n');
    if (
      plan.directive.content_sha256 !== record.directive.content_sha256 ||
      [...plan.capabilities].sort().join('\n') !== recordedCaps
    )
      throw new RyeError(
        'THREAD_RESUME_PINNED',
        `Cannot resume thread ${paths.threadId}: directive ${record.directive.id} changed (recorded sha256 ${record.directive.content_sha256}, now ${plan.directive.content_sha256})`,
        {
          thread: paths.threadId,
          recorded_sha256: record.directive.content_sha256,
          current_sha256: plan.directive.content_sha256,
          recorded_caps: record.caps,
          current_caps: plan.capabilities,
        },
      );
    if (plan.model === null)
      throw new RyeError(
        plan.model_error?.code ?? 'PROVIDER_MODEL_UNKNOWN',
        `Cannot resume thread ${paths.threadId}: ${plan.model_error?.message ?? 'no model'}`,
        { thread: paths.threadId },
      );
    const client = await input.client(plan);
    const loaded = await loadOperation(input.ops, {
      item_type: 'directive',
      item_id: record.directive.id,
    });
    const returnSchema = returnSchemaOf(loaded.metadata['program'] as DirectiveProgram);
    const split = splitLines(readTranscriptBytes(paths.transcript));
    const verified = verifyTranscript(split, { thread: paths.threadId, trust: input.trust });
    const repaired = repairTranscript({
      path: paths.transcript,
      artifactsDir: paths.artifacts,
      thread: paths.threadId,
      clock,
      signer: input.signer,
      verified,
    });
    writer = repaired.writer;
    const events = resolveArtifacts([...verified.events, ...repaired.appended], paths.artifacts);
    const rebuilt = rebuildThread(events);
    registry = RegistryDb.open(registryDbPath(input.projectRoot), { clock });
    const budget = registry.budgetStore();
    let cost: ThreadCost = rebuilt.cost;
    for (const attempt of rebuilt.openAttempts) {
      let released;
      try {
        released = await budget.release(attempt, 'interrupted');
      } catch (error) {
        if (!isRyeError(error)) throw error;
        throw new RyeError(
          'THREAD_RESUME_NO_USAGE',
          `Cannot resume thread ${paths.threadId}: attempt ${attempt} has no usage on record in the transcript or the ledger`,
          { thread: paths.threadId, attempt },
          { cause: error },
        );
      }
      writer.append('budget', {
        op: 'release',
        attempt_id: attempt,
        accounts: released.accounts,
        nanos: released.committedNanos,
        basis: released.basis,
        state: released.state,
      });
      cost = { ...cost, spend_nanos: cost.spend_nanos + released.committedNanos };
    }
    const running = {
      ...record,
      status: 'running' as const,
      updated_at: new Date(clock.now()).toISOString(),
    };
    await writeThreadRecord(paths, running, input.signer, new Date(clock.now()));
    registry.setStatus(paths.threadId, 'running');
    const run = new ThreadRun(
      {
        projectRoot: input.projectRoot,
        ops: input.ops,
        plan,
        returnSchema,
        client,
        signer: input.signer,
        clock,
        ...(input.onProgress === undefined ? {} : { onProgress: input.onProgress }),
      },
      {
        threadId: paths.threadId,
        clock,
        pricing: parsePricing(plan.model.pricing, plan.model.model),
        registry,
        budget,
        record: running,
        writer,
        resume: {
          messages: rebuilt.messages,
          cost,
          message: input.message,
          nextTurnKey: nextTurnKey(events),
        },
      },
    );
    return await run.run(paths);
  } finally {
    writer?.close();
    registry?.close();
    lock.release();
  }
}

/** One past the highest turn any attempt key of the transcript used. Pure. */
function nextTurnKey(events: readonly StoredEvent[]): number {
  let next = 0;
  for (const event of events) {
    if (event.type !== 'budget') continue;
    const match = /:(\d+):\d+$/.exec(String(event.payload['attempt_id']));
    if (match !== null) next = Math.max(next, Number(match[1]) + 1);
  }
  return next;
}
