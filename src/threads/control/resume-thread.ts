import { reopenTranscript, type ReopenedTranscript } from './reopen-transcript.js';
import { RyeError, isRyeError } from '../../errors/index.js';
import type { DirectiveLimits, DirectiveProgram } from '../../items/index.js';
import { formatUsd, type BudgetStore } from '../budget/index.js';
import { returnSchemaOf } from '../directive/index.js';
import { systemClock, systemRandom } from '../../ids/index.js';
import { loadOperation } from '../../ops/index.js';
import { planDirectiveOperation } from '../admission/index.js';
import {
  RegistryDb,
  acquireTreeLock,
  checkThreadDir,
  ownTrust,
  readThreadRecord,
  registryDbPath,
  threadPaths,
  treeLockPath,
  writeThreadRecord,
  type ThreadRecord,
} from '../store/index.js';
import {
  macKeyring,
  rebuildThread,
  type StoredEvent,
  type ThreadCost,
} from '../transcript/index.js';
import type { ThreadResult } from '../loop/thread-result.js';
import { ThreadTree, mintRootToken, spawnChild, startNode } from '../tree/index.js';
import { narrowAuthority, newJti, parseCapability } from '../../capabilities/index.js';
import { watchCancelRequests } from '../loop/cancel-watch.js';
import { rebaseThread } from './rebase-thread.js';
import type { ResumeThreadInput } from './resume-input.js';
import { reconcileLedger, subtreeBudgetEvents } from './reconcile-ledger.js';
import { applyLimits, limitsToSet, refuseLimitsSet } from './resume-limits.js';
import { pricingOf } from '../loop/admission-facts.js';
import { ThreadRun } from '../loop/thread-run.js';

/**
 * Resume a thread (THREADS.md §10): take the tree lock (THREAD_LOCKED),
 * verify the signed record (THREAD_RECORD_INVALID), re-admit the directive
 * and require the same content hash and capability set (THREAD_RESUME_PINNED
 * naming both), get the provider client, verify every chain link and
 * checkpoint (TRANSCRIPT_TAMPERED naming the seq), repair a torn tail and
 * dangling calls and re-seal (persisted), rebuild the conversation and totals,
 * reconcile the ledger with the signed transcripts (an account whose committed
 * spend is below theirs is raised to it, `repair{kind: "ledger_raised"}`),
 * settle attempts a crash left open in the ledger (their reservation is
 * charged; none on record is THREAD_RESUME_NO_USAGE), take the limits of the
 * last signed `limits_set` and the operator's `limits` (resume-limits.ts;
 * USAGE_INVALID_ARGUMENT, BUDGET_UNPRICED_MODEL before anything is written),
 * then append the message and continue the same transcript with cumulative
 * cost and limits.
 */
export async function resumeThread(input: ResumeThreadInput): Promise<ThreadResult> {
  const clock = input.clock ?? systemClock;
  const random = input.random ?? systemRandom;
  const set = limitsToSet(input);
  const paths = threadPaths(input.projectRoot, input.threadId);
  checkThreadDir(input.projectRoot, paths);
  // Requests recorded before this process owned the tree were for an earlier owner.
  const sinceMs = Date.now();
  const lock = acquireTreeLock(treeLockPath(input.projectRoot, paths.threadId));
  let registry: RegistryDb | undefined;
  let stopWatching = (): void => undefined;
  let writer: ReopenedTranscript['writer'] | undefined;
  try {
    // Only a thread your own key signed is resumed (THREAD_RECORD_FOREIGN); its
    // limits are the pinned directive's, narrowed (never lifted) by the record,
    // until the transcript's signed limits_set replaces them (applyLimits).
    const record = await readThreadRecord(paths, input.trust, { own: input.signer.fingerprint });
    let plan = await planDirectiveOperation(
      await resumeOps(input, record),
      record.directive.id,
      record.inputs,
      { limitOverrides: record.limits as DirectiveLimits },
    );
    const hashChanged = plan.directive.content_sha256 !== record.directive.content_sha256;
    const capsChanged =
      [...plan.capabilities].sort().join('\n') !== [...record.caps].sort().join('\n');
    if ((hashChanged || capsChanged) && input.rebase === true)
      return await rebaseThread({ input, record, plan, paths, clock, random });
    if (hashChanged || capsChanged)
      throw new RyeError(
        'THREAD_RESUME_PINNED',
        `Cannot resume thread ${paths.threadId}: ${
          hashChanged
            ? `directive ${record.directive.id} changed (recorded sha256 ${record.directive.content_sha256}, now ${plan.directive.content_sha256})`
            : `its capability set would change (recorded ${record.caps.length === 0 ? 'none' : record.caps.join(', ')}; now ${plan.capabilities.length === 0 ? 'none' : plan.capabilities.join(', ')})`
        }`,
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
    registry = RegistryDb.open(registryDbPath(input.projectRoot), { clock });
    const budget = registry.budgetStore();
    if (record.parent !== null) await requireOpenAccounts(budget, paths.threadId);
    if (set !== undefined) await refuseLimitsSet(set, { record, plan, budget });
    const client = await input.client(plan);
    const loaded = await loadOperation(input.ops, {
      item_type: 'directive',
      item_id: record.directive.id,
    });
    const returnSchema = returnSchemaOf(loaded.metadata['program'] as DirectiveProgram);
    const reopened = reopenTranscript(paths, {
      trust: ownTrust(input.trust, input.signer.fingerprint),
      signer: input.signer,
      clock,
    });
    writer = reopened.writer;
    const events = reopened.events;
    const rebuilt = rebuildThread(events);
    const repairedHead = writer.head?.seq;
    await reconcileAccounts(input, record, paths.threadId, budget, events, writer);
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
    plan = {
      ...plan,
      limits: await applyLimits(plan.limits, events, set, {
        record,
        budget,
        writer,
        signer: input.signer,
        onProgress: input.onProgress,
      }),
    };
    // Sealed before the record says running: a finished thread's transcript
    // never holds an unsealed event (readers refuse one).
    if (writer.head?.seq !== repairedHead) writer.checkpoint(input.signer);
    const resume = {
      messages: rebuilt.messages,
      cost,
      message: input.message,
      nextTurnKey: nextTurnKey(events),
    };
    const runInput = {
      projectRoot: input.projectRoot,
      ops: input.ops,
      plan,
      returnSchema,
      client,
      signer: input.signer,
      clock,
      random,
      ...(input.onProgress === undefined ? {} : { onProgress: input.onProgress }),
      ...(input.signal === undefined ? {} : { signal: input.signal }),
      ...(input.hookHost === undefined ? {} : { hookHost: input.hookHost }),
    };
    const { pricing } = pricingOf(plan);
    // A resumed thread gets a new token: a new jti and holder key, so the old
    // token stops verifying (THREADS.md §10 step 8). A root resumes at the
    // head of a fresh in-process tree and may spawn again; a child resumes
    // alone (its parent's holder key is gone), its jti rotated to one no token carries.
    const tree = new ThreadTree({
      projectRoot: input.projectRoot,
      registry,
      budget,
      signer: input.signer,
      clock,
      random,
      spawn: spawnChild,
    });
    const duration = plan.limits.duration_seconds;
    const token =
      record.parent === null
        ? mintRootToken(
            tree,
            paths.threadId,
            plan.capabilities,
            duration === 0 ? undefined : clock.now() + duration * 1000,
          )
        : undefined;
    const jti = token?.jti ?? newJti(random);
    const running = {
      ...record,
      limits: { ...plan.limits },
      status: 'running' as const,
      token: { jti, exp: token?.exp ?? record.token?.exp ?? 0 },
      updated_at: new Date(clock.now()).toISOString(),
    };
    await writeThreadRecord(paths, running, input.signer, new Date(clock.now()));
    registry.setStatus(paths.threadId, 'running');
    registry.setJti(paths.threadId, jti);
    if (token !== undefined) {
      const node = startNode({
        tree,
        threadId: paths.threadId,
        parent: null,
        token,
        input: runInput,
        pricing,
        record: running,
        writer,
        resume,
      });
      const owned = registry;
      const rootRun = node.run;
      stopWatching = watchCancelRequests(owned, paths.threadId, (why) => rootRun.cancel(why), {
        sinceMs,
      });
      node.done = rootRun.run(paths);
      node.result = await node.done;
      return node.result;
    }
    const run = new ThreadRun(runInput, {
      threadId: paths.threadId,
      clock,
      pricing,
      registry,
      budget,
      record: running,
      writer,
      resume,
    });
    const owned = registry;
    stopWatching = watchCancelRequests(owned, paths.threadId, (why) => run.cancel(why), {
      sinceMs,
    });
    return await run.run(paths);
  } finally {
    stopWatching();
    writer?.close();
    registry?.close();
    lock.release();
  }
}

/**
 * The authority a thread is re-planned under: the caller's, and for a child
 * also its parent's recorded set (from the parent's verified record), as when
 * it was spawned (THREADS.md §3): otherwise every child whose parent held less
 * than its directive declares would look changed.
 */
async function resumeOps(
  input: ResumeThreadInput,
  record: ThreadRecord,
): Promise<ResumeThreadInput['ops']> {
  if (record.parent === null) return input.ops;
  const parent = await readThreadRecord(
    threadPaths(input.projectRoot, record.parent),
    input.trust,
    {
      own: input.signer.fingerprint,
    },
  );
  return {
    ...input.ops,
    authority: narrowAuthority(
      input.ops.authority,
      parent.caps.map((c) => parseCapability(c)),
      'thread',
    ),
  };
}

/**
 * A child's ledger account closes when the child ends, and its parent's when
 * the parent does: nothing could be reserved, so the resume is refused before
 * anything is written (a thread of a tree that was interrupted keeps its accounts).
 *
 * @throws RyeError BUDGET_DENIED naming the closed account
 */
async function requireOpenAccounts(budget: BudgetStore, threadId: string): Promise<void> {
  const closed = (await budget.balances(threadId)).find((a) => a.state === 'closed');
  if (closed !== undefined)
    throw new RyeError(
      'BUDGET_DENIED',
      `Cannot resume thread ${threadId}: the budget account of ${closed.threadId === threadId ? 'this thread' : `its ancestor ${closed.threadId}`} closed when that thread ended. A child spends from its parent's budget, so it resumes only while its tree's accounts are open (a tree that was interrupted); resume the root of the tree instead, which can spawn it again`,
      { thread: threadId, account: closed.accountId, reason: 'closed' },
    );
}

/**
 * The ledger is a cache of the signed transcripts: before the resumed thread
 * reserves anything, every account on its path (its own, then each
 * ancestor's) is reconciled with the budget events of its subtree's
 * transcripts, and raised when they committed more (never lowered). A raise is
 * recorded as `repair{kind: "ledger_raised"}` in this thread's transcript; any
 * mismatch is a progress line.
 */
async function reconcileAccounts(
  input: ResumeThreadInput,
  record: ThreadRecord,
  threadId: string,
  budget: BudgetStore,
  events: readonly StoredEvent[],
  writer: ReopenedTranscript['writer'],
): Promise<void> {
  const charged = subtreeBudgetEvents(
    input.projectRoot,
    record.tree,
    { trust: ownTrust(input.trust, input.signer.fingerprint), mac: macKeyring(input.signer) },
    { threadId, events },
  );
  for (const { accountId } of await budget.balances(threadId)) {
    const found = await reconcileLedger(budget, accountId, charged);
    if (found.raised)
      writer.append('repair', {
        kind: 'ledger_raised',
        call_ids: [],
        dropped_bytes: 0,
        account: found.account,
        ledger_nanos: found.ledger_nanos,
        transcript_nanos: found.transcript_nanos,
        committed_nanos: found.committed_nanos,
      });
    if (found.mismatch)
      input.onProgress?.(
        `ledger: account ${found.account} had $${formatUsd(found.ledger_nanos)} committed, its transcripts $${formatUsd(found.transcript_nanos)}; ${found.ledger_nanos > found.transcript_nanos ? "the ledger's larger figure stands" : `now $${formatUsd(found.committed_nanos)}`}`,
      );
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
