import { existsSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import { RyeError, isRyeError } from '../../errors/index.js';
import type { Signer, TrustSet } from '../../integrity/index.js';
import { parseThreadId } from '../../ids/index.js';
import { readThreadOutcome, type ThreadOutcome } from '../outcome/index.js';
import {
  RegistryDb,
  checkThreadDir,
  isLive,
  markOrphansInterrupted,
  ownTrust,
  readThreadRecord,
  registryDbPath,
  threadPaths,
  type ThreadStatus,
} from '../store/index.js';
import { CANCEL_POLL_MS } from '../loop/cancel-watch.js';
import { startCancel } from './cancel-thread.js';

/** Statuses that make `fail_fast` cancel the others (THREADS.md §11). */
export const FAIL_FAST_STATUSES: ReadonlySet<ThreadStatus> = new Set([
  'failed',
  'error',
  'budget_denied',
  'killed',
]);

export interface WaitThreadsInput {
  readonly projectRoot: string;
  readonly threadIds: readonly string[];
  readonly failFast?: boolean;
  /** Stop waiting after this long; undefined waits until every thread ends. */
  readonly timeoutMs?: number;
  readonly trust: TrustSet;
  /** The user key, to seal a thread a fail-fast cancel finds without an owner. */
  readonly signer: Signer;
  readonly pollMs?: number;
}

/** What `rye thread wait` answers: the shape of `wait_threads` (THREADS.md §11). */
export interface WaitResult {
  readonly threads: readonly ThreadOutcome[];
  readonly pending: readonly string[];
}

/**
 * Wait across processes for threads to end, reading registry.db every 100 ms
 * (THREADS.md §11). A thread whose owner died counts as ended (`interrupted`).
 * A timeout lists the unfinished ids in `pending` and cancels nothing. With
 * `failFast`, the first thread ending failed, error, budget_denied or killed
 * has every other unfinished one cancelled (reason `sibling_failed`), and the
 * wait goes on until they end, so every finished thread's outputs are
 * returned. Every id is checked (grammar, folder, registry row, signed
 * record) before waiting; outcomes come from the verified records.
 *
 * @throws RyeError THREAD_ID_INVALID, THREAD_NOT_FOUND, THREAD_RECORD_INVALID
 */
export async function waitThreads(input: WaitThreadsInput): Promise<WaitResult> {
  const ids = [...new Set(input.threadIds.map((id) => parseThreadId(id)))];
  if (ids.length === 0)
    throw new RyeError('USAGE_INVALID_ARGUMENT', 'Cannot wait: name at least one thread', {});
  const records = new Map<string, Awaited<ReturnType<typeof readThreadRecord>>>();
  for (const id of ids) {
    const paths = threadPaths(input.projectRoot, id);
    checkThreadDir(input.projectRoot, paths);
    // Only threads your own key signed are waited on (THREAD_RECORD_FOREIGN).
    records.set(id, await readThreadRecord(paths, input.trust, { own: input.signer.fingerprint }));
  }
  if (!existsSync(registryDbPath(input.projectRoot)))
    throw new RyeError('THREAD_NOT_FOUND', `Cannot find ${ids[0]} in the registry: it has none`, {
      thread: ids[0],
    });
  const registry = RegistryDb.open(registryDbPath(input.projectRoot));
  try {
    const missing = ids.filter((id) => registry.get(id) === undefined);
    if (missing.length > 0)
      throw new RyeError('THREAD_NOT_FOUND', `Cannot find ${missing.join(', ')} in the registry`, {
        threads: missing,
      });
    const deadline = input.timeoutMs === undefined ? Infinity : Date.now() + input.timeoutMs;
    const ended = new Map<string, ThreadStatus>();
    let cancelling = false;
    for (;;) {
      markOrphansInterrupted(input.projectRoot, registry);
      for (const id of ids) {
        const status = registry.get(id)?.status;
        if (status !== undefined && !isLive(status)) ended.set(id, status);
      }
      const failed = [...ended.values()].some((s) => FAIL_FAST_STATUSES.has(s));
      if (input.failFast === true && failed && !cancelling) {
        cancelling = true;
        for (const id of ids.filter((i) => !ended.has(i)))
          await cancelQuietly(input, registry, id, records.get(id));
        continue;
      }
      if (ended.size === ids.length || Date.now() >= deadline) break;
      await delay(Math.min(input.pollMs ?? CANCEL_POLL_MS, Math.max(0, deadline - Date.now())));
    }
    const threads: ThreadOutcome[] = [];
    for (const id of ids) {
      const status = ended.get(id);
      if (status !== undefined)
        threads.push(await readThreadOutcome(input.projectRoot, id, input.trust, status));
    }
    return { threads, pending: ids.filter((id) => !ended.has(id)) };
  } finally {
    registry.close();
  }
}

/** A fail-fast cancel: a thread that cannot be cancelled is still waited for, never fatal. */
async function cancelQuietly(
  input: WaitThreadsInput,
  registry: RegistryDb,
  id: string,
  record: Awaited<ReturnType<typeof readThreadRecord>> | undefined,
): Promise<void> {
  if (record === undefined) return;
  try {
    await startCancel({
      projectRoot: input.projectRoot,
      threadId: id,
      reason: 'sibling_failed',
      signer: input.signer,
      trust: ownTrust(input.trust, input.signer.fingerprint),
      paths: threadPaths(input.projectRoot, id),
      record,
      registry,
    });
  } catch (error) {
    if (!isRyeError(error)) throw error;
  }
}
