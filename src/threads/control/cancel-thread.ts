import { setTimeout as delay } from 'node:timers/promises';
import { RyeError, isRyeError } from '../../errors/index.js';
import type { Signer, TrustSet } from '../../integrity/index.js';
import { escapeControl } from '../../platform/index.js';
import { systemClock, type Clock } from '../../ids/index.js';
import { readThreadOutcome, type ThreadOutcome } from '../outcome/index.js';
import {
  CancelRequests,
  RegistryDb,
  acquireTreeLock,
  checkThreadDir,
  holderAlive,
  isLive,
  ownTrust,
  readThreadRecord,
  readTreeLock,
  registryDbPath,
  threadPaths,
  treeLockPath,
  type ThreadPaths,
  type ThreadRecord,
  type ThreadStatus,
} from '../store/index.js';
import { CANCEL_POLL_MS } from '../loop/cancel-watch.js';
import { sealCancelled } from './seal-cancelled.js';

/** How long `rye thread cancel` waits for a live owner (tools get 2 s of grace before SIGKILL). */
export const CANCEL_WAIT_MS = 15_000;
/** The longest reason recorded. */
export const MAX_CANCEL_REASON = 500;

/** What a cancel did: the owner ended it, it was sealed here (no owner), or nothing (it had ended). */
export type CancelAction = 'cancelled' | 'sealed' | 'already_finished' | 'finished_first';

export interface CancelOutcome extends ThreadOutcome {
  readonly action: CancelAction;
}

export interface CancelThreadInput {
  readonly projectRoot: string;
  readonly threadId: string;
  readonly reason: string;
  /** The user key: seals a thread whose owner is gone. */
  readonly signer: Signer;
  readonly trust: TrustSet;
  readonly clock?: Clock;
  readonly waitMs?: number;
  readonly pollMs?: number;
}

/**
 * A cancel reason as recorded: control characters escaped, at most
 * {@link MAX_CANCEL_REASON} characters. Pure.
 * @throws RyeError USAGE_INVALID_ARGUMENT (empty or too long)
 */
export function parseCancelReason(text: string): string {
  const reason = escapeControl(text.trim());
  if (reason === '' || reason.length > MAX_CANCEL_REASON)
    throw new RyeError(
      'USAGE_INVALID_ARGUMENT',
      `Cannot use the cancel reason: it must be 1 to ${MAX_CANCEL_REASON} characters`,
      { length: reason.length },
    );
  return reason;
}

/**
 * Cancel a thread from any process (THREADS.md §11, docs/threads.md): the
 * record is verified first; a finished thread is a no-op answer
 * (`already_finished`); a thread whose owner lives gets a request in
 * registry.db that the owner notices within 100 ms (it aborts the request in
 * flight and its tools, then seals `thread_cancelled`), and this waits for
 * the owner to end it; a thread whose owner is gone (`running` with a dead
 * or missing lock holder, or `interrupted`) is sealed `cancelled` here, under
 * the tree lock.
 *
 * @throws RyeError THREAD_ID_INVALID, THREAD_NOT_FOUND, THREAD_RECORD_INVALID,
 *   TRANSCRIPT_TAMPERED, THREAD_CANCEL_TIMEOUT (the request stays recorded)
 */
export async function cancelThread(input: CancelThreadInput): Promise<CancelOutcome> {
  const paths = threadPaths(input.projectRoot, input.threadId);
  checkThreadDir(input.projectRoot, paths);
  // Only a thread your own key signed is yours to cancel (THREAD_RECORD_FOREIGN).
  const own = input.signer.fingerprint;
  const record = await readThreadRecord(paths, input.trust, { own });
  const registry = RegistryDb.open(registryDbPath(input.projectRoot));
  try {
    const ctx = { ...input, trust: ownTrust(input.trust, own), paths, record, registry };
    const step = await startCancel(ctx);
    const action = step === 'requested' ? await awaitOwner(ctx) : step;
    const row = registry.get(paths.threadId);
    const outcome = await readThreadOutcome(
      input.projectRoot,
      paths.threadId,
      input.trust,
      row?.status,
    );
    return { ...outcome, action };
  } finally {
    registry.close();
  }
}

interface CancelContext extends CancelThreadInput {
  readonly paths: ThreadPaths;
  readonly record: ThreadRecord;
  readonly registry: RegistryDb;
}

/**
 * One step of a cancel, without waiting: `already_finished`, `sealed` (no
 * owner: done here under the lock), or `requested` (the live owner will end it).
 * `rye thread wait --fail-fast` uses it to cancel many threads at once.
 */
export async function startCancel(
  ctx: CancelContext,
): Promise<'already_finished' | 'sealed' | 'requested'> {
  const row = ctx.registry.get(ctx.paths.threadId);
  if (row === undefined)
    throw new RyeError(
      'THREAD_NOT_FOUND',
      `Cannot find thread ${ctx.paths.threadId} in the registry`,
      {
        thread: ctx.paths.threadId,
      },
    );
  if (isFinished(row.status)) return 'already_finished';
  const lockPath = treeLockPath(ctx.projectRoot, ctx.record.tree);
  for (;;) {
    const lock = readTreeLock(lockPath);
    if (lock !== null && lock !== undefined && holderAlive(lock.holder)) {
      new CancelRequests(ctx.registry.db).request(ctx.paths.threadId, ctx.reason, Date.now());
      return 'requested';
    }
    if (lock === null) {
      // An unreadable lock is never taken over: ask, and let an owner (if any) answer.
      new CancelRequests(ctx.registry.db).request(ctx.paths.threadId, ctx.reason, Date.now());
      return 'requested';
    }
    let held;
    try {
      held = acquireTreeLock(lockPath);
    } catch (error) {
      if (isRyeError(error, 'THREAD_LOCKED')) continue; // someone took it meanwhile: look again
      throw error;
    }
    try {
      // Under the lock nothing else writes the thread: decide again on fresh state.
      const again = ctx.registry.get(ctx.paths.threadId);
      if (again !== undefined && isFinished(again.status)) return 'already_finished';
      const sealed = await sealCancelled({
        paths: ctx.paths,
        record: await readThreadRecord(ctx.paths, ctx.trust, { own: ctx.signer.fingerprint }),
        reason: ctx.reason,
        registry: ctx.registry,
        signer: ctx.signer,
        trust: ctx.trust,
        clock: ctx.clock ?? systemClock,
      });
      return sealed.status === 'cancelled' ? 'sealed' : 'already_finished';
    } finally {
      held.release();
    }
  }
}

/** Wait for the owner to end the thread; if the owner dies meanwhile, seal it here. */
async function awaitOwner(ctx: CancelContext): Promise<CancelAction> {
  const deadline = Date.now() + (ctx.waitMs ?? CANCEL_WAIT_MS);
  const lockPath = treeLockPath(ctx.projectRoot, ctx.record.tree);
  let askedOwner: string | undefined;
  for (;;) {
    await delay(ctx.pollMs ?? CANCEL_POLL_MS);
    const row = ctx.registry.get(ctx.paths.threadId);
    if (row !== undefined && isFinished(row.status))
      return row.status === 'cancelled' ? 'cancelled' : 'finished_first';
    const lock = readTreeLock(lockPath);
    if (lock !== null && (lock === undefined || !holderAlive(lock.holder))) {
      const step = await startCancel(ctx);
      if (step !== 'requested') return step;
    } else if (lock !== null && lock.holder.nonce !== askedOwner) {
      // A new owner (a resume that took the tree meanwhile) watches only
      // requests made after it took the lock: ask again.
      askedOwner = lock.holder.nonce;
      new CancelRequests(ctx.registry.db).request(ctx.paths.threadId, ctx.reason, Date.now());
    }
    if (Date.now() >= deadline)
      throw new RyeError(
        'THREAD_CANCEL_TIMEOUT',
        `Cannot confirm the cancel of thread ${ctx.paths.threadId}: its owner did not end it within ${Math.round((ctx.waitMs ?? CANCEL_WAIT_MS) / 1000)} s`,
        { thread: ctx.paths.threadId, status: row?.status ?? null },
      );
  }
}

/** Ended for good: neither live nor `interrupted` (which a cancel seals). */
function isFinished(status: ThreadStatus): boolean {
  return !isLive(status) && status !== 'interrupted';
}
