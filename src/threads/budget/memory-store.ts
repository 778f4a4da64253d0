import { systemClock, type Clock } from '../../ids/index.js';
import type { Account, Attempt, Debit } from './ledger.js';
import {
  balancesIn,
  closeIn,
  markIssuedIn,
  openAccountIn,
  raiseCommittedIn,
  refuseIn,
  releaseIn,
  reserveIn,
  setLimitIn,
  settleIn,
  type LedgerTx,
} from './ledger-ops.js';
import type { BudgetStore, LedgerSnapshot } from './store.js';

interface Tables {
  readonly accounts: Map<string, Account>;
  readonly attempts: Map<string, Attempt>;
  /** attempt key → its debits, keyed by account id. */
  readonly debits: Map<string, Map<string, Debit>>;
  readonly children: Map<string, string[]>;
  /** thread id → keys of its attempts in `reserved` or `issued`. */
  readonly open: Map<string, Set<string>>;
}

/**
 * A budget store in process memory, for tests, benchmarks and runs that keep
 * no record. Each operation runs synchronously to completion before its
 * promise settles, so operations are atomic; a failed one is undone from its
 * journal, so it leaves nothing behind (as a rolled-back transaction).
 */
export function memoryBudgetStore(options: { clock?: Clock } = {}): BudgetStore {
  const clock = options.clock ?? systemClock;
  const t: Tables = {
    accounts: new Map(),
    attempts: new Map(),
    debits: new Map(),
    children: new Map(),
    open: new Map(),
  };

  const run = async <T>(body: (tx: LedgerTx) => T): Promise<T> => {
    const undo: (() => void)[] = [];
    try {
      return body(txOver(t, undo));
    } catch (error) {
      for (let i = undo.length - 1; i >= 0; i -= 1) undo[i]?.();
      throw error;
    }
  };

  return {
    openAccount: (input) => run((tx) => openAccountIn(tx, input)),
    reserve: (input) => run((tx) => reserveIn(tx, input, clock.now())),
    markIssued: (key) => run((tx) => markIssuedIn(tx, key)),
    settle: (key, charge) => run((tx) => settleIn(tx, key, charge, clock.now())),
    release: (key, reason = 'released') => run((tx) => releaseIn(tx, key, reason, clock.now())),
    refuse: (key, status) => run((tx) => refuseIn(tx, key, status, clock.now())),
    close: (threadId) => run((tx) => closeIn(tx, threadId, clock.now())),
    raiseCommitted: (accountId, nanos) => run((tx) => raiseCommittedIn(tx, accountId, nanos)),
    setLimit: (accountId, limit) => run((tx) => setLimitIn(tx, accountId, limit)),
    balances: (threadId) => run((tx) => balancesIn(tx, threadId)),
    snapshot: (treeId) => Promise.resolve(snapshotOf(t, treeId)),
    dispose: () => undefined,
  };
}

/** Set `key` in `map`, journaling how to put the old value back. */
function put<K, V>(map: Map<K, V>, key: K, value: V, undo: (() => void)[]): void {
  const had = map.has(key);
  const old = map.get(key);
  map.set(key, value);
  undo.push(() => (had ? map.set(key, old as V) : map.delete(key)));
}

function txOver(t: Tables, undo: (() => void)[]): LedgerTx {
  const trackOpen = (attempt: Attempt): void => {
    const isOpen = attempt.state === 'reserved' || attempt.state === 'issued';
    const keys = t.open.get(attempt.threadId) ?? new Set<string>();
    if (isOpen === keys.has(attempt.attemptKey)) return;
    const next = new Set(keys);
    if (isOpen) next.add(attempt.attemptKey);
    else next.delete(attempt.attemptKey);
    put(t.open, attempt.threadId, next, undo);
  };
  const putAttempt = (attempt: Attempt): void => {
    put(t.attempts, attempt.attemptKey, attempt, undo);
    trackOpen(attempt);
  };
  return {
    account: (id) => t.accounts.get(id),
    insertAccount(account) {
      put(t.accounts, account.accountId, account, undo);
      const parent = account.parentAccountId;
      if (parent !== null) {
        put(t.children, parent, [...(t.children.get(parent) ?? []), account.accountId], undo);
      }
    },
    setAccount(id, committed, held, state) {
      const row = t.accounts.get(id);
      if (row === undefined) return;
      put(t.accounts, id, { ...row, committedNanos: committed, heldNanos: held, state }, undo);
    },
    setAccountLimit(id, limit) {
      const row = t.accounts.get(id);
      if (row !== undefined) put(t.accounts, id, { ...row, limitNanos: limit }, undo);
    },
    // Sorted like the SQLite store's ORDER BY, so both stores close and report alike.
    children: (id) =>
      (t.children.get(id) ?? [])
        .flatMap((c) => t.accounts.get(c) ?? [])
        .sort((a, b) => compare(a.accountId, b.accountId)),
    attempt: (key) => t.attempts.get(key),
    insertAttempt: putAttempt,
    setAttemptState(key, state) {
      const row = t.attempts.get(key);
      if (row !== undefined) putAttempt({ ...row, state });
    },
    finishAttempt(key, end) {
      const row = t.attempts.get(key);
      if (row !== undefined) putAttempt({ ...row, ...end });
    },
    openAttempts: (threadId) =>
      [...(t.open.get(threadId) ?? [])].sort(compare).flatMap((key) => t.attempts.get(key) ?? []),
    debits: (key) => [...(t.debits.get(key)?.values() ?? [])],
    insertDebit(debit) {
      const rows = new Map(t.debits.get(debit.attemptKey));
      rows.set(debit.accountId, debit);
      put(t.debits, debit.attemptKey, rows, undo);
    },
    setDebit(key, accountId, held, committed) {
      const row = t.debits.get(key)?.get(accountId);
      if (row === undefined) return;
      const rows = new Map(t.debits.get(key));
      rows.set(accountId, { ...row, heldNanos: held, committedNanos: committed });
      put(t.debits, key, rows, undo);
    },
  };
}

function snapshotOf(t: Tables, treeId: string): LedgerSnapshot {
  const accounts = [...t.accounts.values()].filter((a) => a.treeId === treeId);
  const ids = new Set(accounts.map((a) => a.threadId));
  const attempts = [...t.attempts.values()].filter((a) => ids.has(a.threadId));
  return {
    accounts: accounts.sort((a, b) => compare(a.accountId, b.accountId)),
    attempts: attempts.sort((a, b) => compare(a.attemptKey, b.attemptKey)),
    debits: attempts
      .flatMap((a) => [...(t.debits.get(a.attemptKey)?.values() ?? [])])
      .sort((a, b) => compare(a.attemptKey, b.attemptKey) || compare(a.accountId, b.accountId)),
  };
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
