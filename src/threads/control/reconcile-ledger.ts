import { existsSync } from 'node:fs';
import { RyeError, isRyeError } from '../../errors/index.js';
import { addNanos, isNanos, type BudgetStore, type Nanos } from '../budget/index.js';
import { tryParseThreadId } from '../../ids/index.js';
import { checkThreadDir, threadPaths } from '../store/index.js';
import {
  readTranscriptBytes,
  splitLines,
  verifyTranscript,
  type StoredEvent,
  type TranscriptKeys,
} from '../transcript/index.js';

/**
 * The ledger is a cache of the signed transcripts (THREADS.md §6): every
 * charge it commits is mirrored in a sealed `budget` event naming the
 * accounts it was committed on. Whoever can write `registry.db` but not the
 * transcripts could lower an account's committed spend and so reserve more;
 * resume and `rye thread verify` compare each account with what the
 * transcripts add up to, and resume raises the ledger when the transcripts'
 * figure is larger (the larger wins, never lowered).
 */

/** One account of the ledger against the signed transcripts. */
export interface LedgerReconciliation {
  readonly account: string;
  /** The ledger's committed spend as found. */
  readonly ledger_nanos: Nanos;
  /** What the transcripts' settle and release events committed on the account. */
  readonly transcript_nanos: Nanos;
  /** The two differ (either way). */
  readonly mismatch: boolean;
  /** The ledger's committed spend afterwards: the larger of the two, capped at `limit − held`. */
  readonly committed_nanos: Nanos;
  /** The ledger was raised to the transcripts' figure. */
  readonly raised: boolean;
}

/**
 * What the `budget` events among `events` committed on `accountId`: every
 * `settle`, and every `release` that charged (its `nanos`), naming the account
 * in `accounts`, as rebuildThread counts a thread's own spend. An account's
 * charges are in its own transcript and its descendants', so pass theirs too
 * ({@link subtreeBudgetEvents}). Pure.
 *
 * @throws RyeError BUDGET_AMOUNT_INVALID when the sum passes the safe integers
 */
export function transcriptCommitted(events: readonly StoredEvent[], accountId: string): Nanos {
  let sum: Nanos = 0;
  for (const event of events) {
    if (event.type !== 'budget') continue;
    const { op, nanos, accounts } = event.payload as Record<string, unknown>;
    if (op !== 'settle' && op !== 'release') continue;
    if (!isNanos(nanos) || !Array.isArray(accounts) || !accounts.includes(accountId)) continue;
    sum = addNanos(sum, nanos);
  }
  return sum;
}

/**
 * Compare an account with the transcripts without changing it (`rye thread
 * verify`). Pure.
 */
export function compareLedger(
  account: { readonly accountId: string; readonly committedNanos: Nanos },
  events: readonly StoredEvent[],
): LedgerReconciliation {
  const transcript = transcriptCommitted(events, account.accountId);
  return {
    account: account.accountId,
    ledger_nanos: account.committedNanos,
    transcript_nanos: transcript,
    mismatch: account.committedNanos !== transcript,
    committed_nanos: account.committedNanos,
    raised: false,
  };
}

/**
 * Reconcile one account with the verified transcript events that can charge
 * it (the thread's and its descendants'): when the transcripts committed more
 * than the ledger holds, the ledger is raised to their figure in one
 * `BEGIN IMMEDIATE` transaction (`raiseCommitted`, capped at `limit − held`
 * so the account's limit still holds); it is never lowered.
 *
 * @throws RyeError BUDGET_ACCOUNT_INVALID (no account)
 */
export async function reconcileLedger(
  budget: BudgetStore,
  accountId: string,
  events: readonly StoredEvent[],
): Promise<LedgerReconciliation> {
  const transcript = transcriptCommitted(events, accountId);
  const raised = await budget.raiseCommitted(accountId, transcript);
  return {
    account: accountId,
    ledger_nanos: raised.beforeNanos,
    transcript_nanos: transcript,
    mismatch: raised.beforeNanos !== transcript,
    committed_nanos: raised.committedNanos,
    raised: raised.raised,
  };
}

/**
 * The `budget` events of `threadId`'s transcript and of every descendant's,
 * found through the `child_spawned` events of the signed transcripts (never
 * the registry, which is as writable as the ledger). Each transcript is
 * verified against `keys` (`known` supplies events already verified, the
 * resumed thread's); a descendant without a transcript (a spawn cut off
 * before its first event) has none.
 *
 * @throws RyeError TRANSCRIPT_TAMPERED naming the thread and seq, TRANSCRIPT_INVALID
 */
export function subtreeBudgetEvents(
  projectRoot: string,
  threadId: string,
  keys: TranscriptKeys,
  known?: { readonly threadId: string; readonly events: readonly StoredEvent[] },
): StoredEvent[] {
  const found: StoredEvent[] = [];
  const seen = new Set<string>();
  const queue = [threadId];
  for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
    if (seen.has(id)) continue;
    seen.add(id);
    const events =
      known !== undefined && known.threadId === id
        ? known.events
        : verifiedEventsOf(projectRoot, id, keys, id !== threadId);
    for (const event of events) {
      if (event.type === 'budget') found.push(event);
      const child = event.type === 'child_spawned' ? event.payload['child'] : undefined;
      if (typeof child === 'string' && tryParseThreadId(child) !== undefined) queue.push(child);
    }
  }
  return found;
}

function verifiedEventsOf(
  projectRoot: string,
  threadId: string,
  keys: TranscriptKeys,
  descendant: boolean,
): readonly StoredEvent[] {
  const paths = threadPaths(projectRoot, threadId);
  if (descendant && !existsSync(paths.transcript)) return [];
  checkThreadDir(projectRoot, paths);
  try {
    return verifyTranscript(splitLines(readTranscriptBytes(paths.transcript)), {
      thread: paths.threadId,
      ...keys,
    }).events;
  } catch (error) {
    if (!isRyeError(error) || !descendant) throw error;
    throw new RyeError(
      error.code,
      `Cannot check the ledger against descendant ${threadId}: ${error.message}`,
      { ...(error.details as Record<string, unknown>), thread: threadId },
      { cause: error },
    );
  }
}
