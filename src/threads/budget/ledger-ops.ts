import { RyeError } from '../../errors/index.js';
import { tryParseThreadId } from '../../ids/index.js';
import {
  availableOf,
  decideRefused,
  decideRelease,
  decideReserve,
  decideSettle,
  requireAttemptKey,
  requireState,
  type Account,
  type AccountState,
  type Attempt,
  type AttemptState,
  type ChargeBasis,
  type Debit,
  type Finalization,
} from './ledger.js';
import { addNanos, requireNanos, type Nanos } from './money.js';
import type {
  AccountBalance,
  CloseResult,
  FinalizeResult,
  OpenAccountInput,
  RaiseResult,
  ReserveInput,
  SetLimitResult,
  ReserveResult,
} from './store.js';

/**
 * Row access inside one transaction. A store provides it (Maps in memory,
 * prepared statements in SQLite); the operations below are the only code that
 * changes ledger rows, so every store applies the same rules.
 */
export interface LedgerTx {
  account(accountId: string): Account | undefined;
  insertAccount(account: Account): void;
  setAccount(accountId: string, committed: Nanos, held: Nanos, state: AccountState): void;
  setAccountLimit(accountId: string, limit: Nanos | null): void;
  children(accountId: string): readonly Account[];
  attempt(attemptKey: string): Attempt | undefined;
  insertAttempt(attempt: Attempt): void;
  setAttemptState(attemptKey: string, state: AttemptState): void;
  finishAttempt(attemptKey: string, end: AttemptEnd): void;
  /** Attempts of the thread in `reserved` or `issued`. */
  openAttempts(threadId: string): readonly Attempt[];
  debits(attemptKey: string): readonly Debit[];
  insertDebit(debit: Debit): void;
  setDebit(attemptKey: string, accountId: string, held: Nanos, committed: Nanos): void;
}

export interface AttemptEnd {
  readonly state: AttemptState;
  readonly chargedNanos: Nanos;
  readonly basis: ChargeBasis | null;
  readonly reason: string | null;
  readonly settledMs: number;
}

/** Deeper than any tree the depth limit allows; guards against a cycle in stored rows. */
const MAX_PATH = 64;
const SHA256_HEX = /^[0-9a-f]{64}$/;

/** @throws RyeError BUDGET_ACCOUNT_INVALID, BUDGET_AMOUNT_INVALID */
export function openAccountIn(tx: LedgerTx, input: OpenAccountInput): AccountBalance {
  const { threadId, treeId, parentThreadId } = input;
  if (tryParseThreadId(threadId) === undefined || tryParseThreadId(treeId) === undefined) {
    throw accountInvalid(threadId, 'the thread or tree id is not a thread id');
  }
  if (input.limitNanos !== null) requireNanos(input.limitNanos, 'the spend limit');
  if (tx.account(threadId) !== undefined) throw accountInvalid(threadId, 'it exists already');
  if (parentThreadId === null) {
    if (treeId !== threadId) throw accountInvalid(threadId, 'a root account names its own tree');
  } else {
    const parent = tx.account(parentThreadId);
    if (parent === undefined)
      throw accountInvalid(threadId, `its parent ${parentThreadId} has no account`);
    if (parent.state !== 'active')
      throw accountInvalid(threadId, `its parent ${parentThreadId} is closed`);
    if (parent.treeId !== treeId)
      throw accountInvalid(threadId, `its parent is in tree ${parent.treeId}`);
  }
  const account: Account = {
    accountId: threadId,
    treeId,
    threadId,
    parentAccountId: parentThreadId,
    limitNanos: input.limitNanos,
    committedNanos: 0,
    heldNanos: 0,
    state: 'active',
  };
  tx.insertAccount(account);
  return { ...account, availableNanos: availableOf(account) };
}

/**
 * The thread's account, then each ancestor's.
 * @throws RyeError BUDGET_ACCOUNT_INVALID
 */
export function pathIn(tx: LedgerTx, threadId: string): Account[] {
  const path: Account[] = [];
  let next: string | null = threadId;
  while (next !== null) {
    const account = tx.account(next);
    if (account === undefined) {
      throw accountInvalid(
        threadId,
        next === threadId ? 'it has no account' : `ancestor ${next} has no account`,
      );
    }
    path.push(account);
    if (path.length > MAX_PATH) throw accountInvalid(threadId, 'its ancestry does not end');
    next = account.parentAccountId;
  }
  return path;
}

/** @throws RyeError BUDGET_ATTEMPT_INVALID, BUDGET_ACCOUNT_INVALID, BUDGET_AMOUNT_INVALID */
export function reserveIn(tx: LedgerTx, input: ReserveInput, nowMs: number): ReserveResult {
  const { attemptKey, threadId } = input;
  requireAttemptKey(attemptKey, threadId);
  const worst = requireNanos(input.worstNanos, 'the worst case');
  if (!SHA256_HEX.test(input.requestSha256)) {
    throw new RyeError(
      'BUDGET_ATTEMPT_INVALID',
      `Cannot reserve ${attemptKey}: request_sha256 is not a hex SHA-256`,
      {
        attempt: attemptKey,
      },
    );
  }
  if (tx.attempt(attemptKey) !== undefined) {
    throw new RyeError(
      'BUDGET_ATTEMPT_INVALID',
      `Cannot reserve ${attemptKey}: the key was used already`,
      {
        attempt: attemptKey,
      },
    );
  }
  const path = pathIn(tx, threadId);
  const decision = decideReserve(path, worst);
  tx.insertAttempt({
    attemptKey,
    threadId,
    requestSha256: input.requestSha256,
    state: decision.granted ? 'reserved' : 'denied',
    reservedNanos: worst,
    chargedNanos: decision.granted ? null : 0,
    basis: null,
    reason: decision.granted ? null : `${decision.reason}:${decision.accountId}`,
    createdMs: nowMs,
    settledMs: decision.granted ? null : nowMs,
  });
  if (!decision.granted) return { ...decision, attemptKey, worstNanos: worst };
  for (const account of path) {
    tx.insertDebit({
      attemptKey,
      accountId: account.accountId,
      heldNanos: worst,
      committedNanos: 0,
    });
    tx.setAccount(
      account.accountId,
      account.committedNanos,
      addNanos(account.heldNanos, worst),
      account.state,
    );
  }
  return { granted: true, attemptKey, worstNanos: worst, accounts: path.map((a) => a.accountId) };
}

/** @throws RyeError BUDGET_ATTEMPT_INVALID */
export function markIssuedIn(tx: LedgerTx, attemptKey: string): void {
  const attempt = attemptOf(tx, attemptKey);
  requireState(attempt, ['reserved'], 'issue');
  tx.setAttemptState(attemptKey, 'issued');
}

/** @throws RyeError BUDGET_ATTEMPT_INVALID */
export function settleIn(
  tx: LedgerTx,
  attemptKey: string,
  charge: unknown,
  nowMs: number,
): FinalizeResult {
  const attempt = attemptOf(tx, attemptKey);
  return finalize(tx, attempt, decideSettle(attempt, charge), nowMs);
}

/** @throws RyeError BUDGET_ATTEMPT_INVALID */
export function releaseIn(
  tx: LedgerTx,
  attemptKey: string,
  reason: string,
  nowMs: number,
): FinalizeResult {
  const attempt = attemptOf(tx, attemptKey);
  return finalize(tx, attempt, decideRelease(attempt, reason), nowMs);
}

/** @throws RyeError BUDGET_ATTEMPT_INVALID */
export function refuseIn(
  tx: LedgerTx,
  attemptKey: string,
  status: number,
  nowMs: number,
): FinalizeResult {
  const attempt = attemptOf(tx, attemptKey);
  return finalize(tx, attempt, decideRefused(attempt, status), nowMs);
}

/** @throws RyeError BUDGET_ACCOUNT_INVALID */
export function closeIn(tx: LedgerTx, threadId: string, nowMs: number): CloseResult {
  const root = tx.account(threadId);
  if (root === undefined) throw accountInvalid(threadId, 'it has no account');
  const subtree: Account[] = [];
  const queue: Account[] = [root];
  for (let account = queue.shift(); account !== undefined; account = queue.shift()) {
    if (account.state === 'active') subtree.push(account);
    queue.push(...tx.children(account.accountId));
  }
  const finalized: FinalizeResult[] = [];
  for (const account of subtree) {
    for (const attempt of tx.openAttempts(account.threadId)) {
      finalized.push(finalize(tx, attempt, decideRelease(attempt, 'closed'), nowMs));
    }
  }
  for (const { accountId } of subtree) {
    const now = tx.account(accountId);
    if (now !== undefined) tx.setAccount(accountId, now.committedNanos, now.heldNanos, 'closed');
  }
  return { closed: subtree.map((a) => a.accountId), finalized };
}

/**
 * Raise an account's committed spend to `nanos` when it is lower, never
 * lowering it (the larger wins): how the ledger, a cache of the signed
 * transcripts, is repaired from them (THREADS.md §6). A finite account is
 * raised at most to `limit − held`, so `committed + held ≤ limit` still holds;
 * the account then has nothing left to reserve. No attempt or debit is
 * written: the spend raised is the transcripts', not a new charge.
 *
 * @throws RyeError BUDGET_ACCOUNT_INVALID (no such account), BUDGET_AMOUNT_INVALID
 */
export function raiseCommittedIn(tx: LedgerTx, accountId: string, nanos: Nanos): RaiseResult {
  const target = requireNanos(nanos, 'the committed spend');
  const account = tx.account(accountId);
  if (account === undefined) throw accountInvalid(accountId, 'it has no account');
  const ceiling =
    account.limitNanos === null ? target : Math.max(0, account.limitNanos - account.heldNanos);
  const committed = Math.max(account.committedNanos, Math.min(target, ceiling));
  if (committed !== account.committedNanos)
    tx.setAccount(accountId, committed, account.heldNanos, account.state);
  return {
    accountId,
    beforeNanos: account.committedNanos,
    committedNanos: committed,
    raised: committed !== account.committedNanos,
  };
}

/**
 * Set an account's spend limit (null = unlimited), higher or lower: the
 * operator's `rye thread resume --limit spend=…`, recorded in a signed
 * `limits_set` event. Only that account changes; what it committed and holds
 * stays, and `committed + held ≤ limit` still holds: a limit below them is
 * refused. Setting the limit an account has changes nothing (a closed one too);
 * changing a closed account's is refused.
 *
 * @throws RyeError BUDGET_ACCOUNT_INVALID (no such account, or closed),
 *   BUDGET_AMOUNT_INVALID (not nanos, or below committed + held)
 */
export function setLimitIn(
  tx: LedgerTx,
  accountId: string,
  limitNanos: Nanos | null,
): SetLimitResult {
  if (limitNanos !== null) requireNanos(limitNanos, 'the spend limit');
  const account = tx.account(accountId);
  if (account === undefined) throw accountInvalid(accountId, 'it has no account');
  if (account.limitNanos === limitNanos)
    return { accountId, beforeNanos: limitNanos, limitNanos, changed: false };
  if (account.state !== 'active') throw accountInvalid(accountId, 'it is closed');
  const spent = account.committedNanos + account.heldNanos;
  if (limitNanos !== null && limitNanos < spent)
    throw new RyeError(
      'BUDGET_AMOUNT_INVALID',
      `Cannot set the spend limit of ${accountId} to ${limitNanos} nano-USD: it has committed and holds ${spent} already`,
      {
        thread: accountId,
        limit_nanos: limitNanos,
        committed_nanos: account.committedNanos,
        held_nanos: account.heldNanos,
      },
    );
  tx.setAccountLimit(accountId, limitNanos);
  return { accountId, beforeNanos: account.limitNanos, limitNanos, changed: true };
}

/** Every account of the path, with what it can still reserve. */
export function balancesIn(tx: LedgerTx, threadId: string): AccountBalance[] {
  return pathIn(tx, threadId).map((account) => ({
    ...account,
    availableNanos: availableOf(account),
  }));
}

function finalize(
  tx: LedgerTx,
  attempt: Attempt,
  end: Finalization,
  nowMs: number,
): FinalizeResult {
  const debits = tx.debits(attempt.attemptKey);
  for (const debit of debits) {
    const account = tx.account(debit.accountId);
    if (account === undefined || account.heldNanos < debit.heldNanos) {
      throw new RyeError(
        'INTERNAL_ERROR',
        `Cannot finalize ${attempt.attemptKey}: account ${debit.accountId} does not hold it`,
        {
          attempt: attempt.attemptKey,
          account: debit.accountId,
        },
      );
    }
    tx.setDebit(attempt.attemptKey, debit.accountId, 0, end.commitNanos);
    tx.setAccount(
      debit.accountId,
      addNanos(account.committedNanos, end.commitNanos),
      account.heldNanos - debit.heldNanos,
      account.state,
    );
  }
  tx.finishAttempt(attempt.attemptKey, {
    state: end.state,
    chargedNanos: end.chargedNanos,
    basis: end.basis,
    reason: end.reason,
    settledMs: nowMs,
  });
  return {
    attemptKey: attempt.attemptKey,
    threadId: attempt.threadId,
    state: end.state,
    reservedNanos: attempt.reservedNanos,
    chargedNanos: end.chargedNanos,
    committedNanos: end.commitNanos,
    basis: end.basis,
    reason: end.reason,
    accounts: debits.map((d) => d.accountId),
  };
}

function attemptOf(tx: LedgerTx, attemptKey: string): Attempt {
  const attempt = tx.attempt(attemptKey);
  if (attempt !== undefined) return attempt;
  throw new RyeError(
    'BUDGET_ATTEMPT_INVALID',
    `Cannot find attempt ${JSON.stringify(attemptKey.slice(0, 120))}`,
    {
      attempt: attemptKey.slice(0, 200),
    },
  );
}

function accountInvalid(threadId: string, why: string): RyeError {
  return new RyeError(
    'BUDGET_ACCOUNT_INVALID',
    `Cannot use the budget account of ${threadId}: ${why}`,
    {
      thread: threadId,
    },
  );
}
