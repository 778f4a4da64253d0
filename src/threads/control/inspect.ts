import { existsSync } from 'node:fs';
import { isRyeError } from '../../errors/index.js';
import type { TrustSet } from '../../integrity/index.js';
import {
  RegistryDb,
  readThreadRecord,
  threadMacKeyring,
  FINISHED_STATUSES,
  markOrphansInterrupted,
  registryDbPath,
  checkThreadDir,
  ownTrust,
  threadPaths,
  type ThreadPaths,
  type ThreadRecord,
  type ThreadRow,
} from '../store/index.js';
import {
  readTranscriptBytes,
  resolveArtifacts,
  splitLines,
  verifyTranscript,
  type MacKeyring,
  type TranscriptKeys,
  type StoredEvent,
} from '../transcript/index.js';
import { formatUsd } from '../budget/index.js';
import { compareLedger, subtreeBudgetEvents } from './reconcile-ledger.js';

/**
 * Mark `interrupted` every `running` thread whose tree lock is gone or held by
 * a dead process (THREADS.md §8), then list the index, oldest first.
 */
export function listThreads(
  projectRoot: string,
  filter: { status?: ThreadRow['status']; tree?: string } = {},
): ThreadRow[] {
  // Listing writes nothing into a project that never ran a thread.
  if (!existsSync(registryDbPath(projectRoot))) return [];
  const db = RegistryDb.open(registryDbPath(projectRoot));
  try {
    markOrphansInterrupted(projectRoot, db);
    return db.list(filter);
  } finally {
    db.close();
  }
}

/**
 * A thread's signed record, verified against `trust`, with its registry row;
 * `foreign` when it is not signed by `own` (your key's fingerprint; none:
 * every thread is someone else's).
 * @throws RyeError THREAD_ID_INVALID, THREAD_NOT_FOUND, THREAD_RECORD_INVALID
 */
export async function showThread(
  projectRoot: string,
  threadId: string,
  trust: TrustSet,
  own?: string,
): Promise<{ record: ThreadRecord; row: ThreadRow | null; foreign: boolean }> {
  const paths = threadPaths(projectRoot, threadId);
  checkThreadDir(projectRoot, paths);
  const record = await readThreadRecord(paths, trust);
  const foreign = await isForeign(paths, trust, own);
  const db = RegistryDb.open(registryDbPath(projectRoot));
  try {
    markOrphansInterrupted(projectRoot, db);
    return { record, row: db.get(paths.threadId) ?? null, foreign };
  } finally {
    db.close();
  }
}

/** True when the record is not signed by `own` (none: every thread is someone else's). */
async function isForeign(paths: ThreadPaths, trust: TrustSet, own?: string): Promise<boolean> {
  if (own === undefined) return true;
  return readThreadRecord(paths, trust, { own }).then(
    () => false,
    (error: unknown) => {
      if (isRyeError(error, 'THREAD_RECORD_FOREIGN')) return true;
      throw error;
    },
  );
}

/** What `rye thread verify` found. */
export interface ThreadVerification {
  readonly thread_id: string;
  readonly status: ThreadRecord['status'];
  /**
   * Signed by another trusted key than yours: someone else's thread, shown
   * and checked under the whole trust set. Your own thread is checked under
   * your key alone, as resume reads it.
   */
  readonly foreign: boolean;
  readonly events: number;
  readonly last_checkpoint_seq: number;
  readonly unsealed: number;
  /**
   * Events after the last checkpoint left unread: the thread is someone
   * else's (or there is no user key), so their MACs cannot be checked here.
   */
  readonly unverified: number;
  readonly torn_tail_bytes: number;
  /**
   * The thread's ledger account against what the signed transcripts (its own
   * and its descendants') committed on it; null when registry.db holds no
   * account for it. Only reported: `rye thread resume` raises a lower ledger.
   */
  readonly ledger: {
    readonly account: string;
    readonly ledger_usd: string;
    readonly transcript_usd: string;
    readonly mismatch: boolean;
  } | null;
}

/**
 * Verify a thread offline (THREADS.md §14): the signed record, every `prev`
 * link, every checkpoint signature, every artifact; a finished thread must
 * end sealed.
 *
 * @throws RyeError THREAD_ID_INVALID, THREAD_NOT_FOUND, THREAD_RECORD_INVALID,
 *   TRANSCRIPT_TAMPERED (naming the seq), TRANSCRIPT_INVALID
 */
export async function verifyThread(
  projectRoot: string,
  threadId: string,
  trust: TrustSet,
  mac: MacKeyring | null,
): Promise<ThreadVerification> {
  const paths = threadPaths(projectRoot, threadId);
  checkThreadDir(projectRoot, paths);
  const record = await readThreadRecord(paths, trust);
  // Null unless the record is signed by your key (threadMacKeyring reads it under that key).
  const own = await threadMacKeyring(paths, trust, mac);
  const foreign = own === null;
  // Your own thread counts only what your key signed (checkpoints, limits_set), as resume does.
  const readUnder = own === null ? trust : ownTrust(trust, own.fingerprint);
  const split = splitLines(readTranscriptBytes(paths.transcript));
  const verified = verifyTranscript(split, {
    thread: paths.threadId,
    trust: readUnder,
    mac: own,
    requireSealed: FINISHED_STATUSES.has(record.status),
  });
  const events = resolveArtifacts(verified.events, paths.artifacts);
  return {
    thread_id: paths.threadId,
    status: record.status,
    foreign,
    events: verified.events.length,
    last_checkpoint_seq: verified.lastCheckpointSeq,
    unsealed: verified.unsealed,
    unverified: verified.unverified,
    torn_tail_bytes: split.tornTail?.length ?? 0,
    ledger: await ledgerCheck(projectRoot, paths.threadId, { trust: readUnder, mac: own }, events),
  };
}

/**
 * The thread's account in registry.db compared with its subtree's verified
 * budget events; nothing is written (a verify never repairs).
 */
async function ledgerCheck(
  projectRoot: string,
  threadId: string,
  keys: TranscriptKeys,
  events: readonly StoredEvent[],
): Promise<ThreadVerification['ledger']> {
  if (!existsSync(registryDbPath(projectRoot))) return null;
  const db = RegistryDb.open(registryDbPath(projectRoot));
  let account;
  try {
    account = (await db.budgetStore().balances(threadId))[0];
  } catch (error) {
    if (isRyeError(error, 'BUDGET_ACCOUNT_INVALID')) return null;
    throw error;
  } finally {
    db.close();
  }
  if (account === undefined) return null;
  const found = compareLedger(
    account,
    subtreeBudgetEvents(projectRoot, threadId, keys, { threadId, events }),
  );
  return {
    account: found.account,
    ledger_usd: formatUsd(found.ledger_nanos),
    transcript_usd: formatUsd(found.transcript_nanos),
    mismatch: found.mismatch,
  };
}
