import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type Database from 'better-sqlite3';
import { openSqlite } from '../../platform/index.js';
import { systemClock, type Clock } from '../../ids/index.js';
import type { Account, AccountState, Attempt, AttemptState, ChargeBasis, Debit } from './ledger.js';
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
import { LEDGER_MIGRATIONS, configureConnection, migrateComponent } from './schema.js';
import type { BudgetStore, LedgerSnapshot } from './store.js';

interface AccountRow {
  account_id: string;
  tree_id: string;
  thread_id: string;
  parent_account_id: string | null;
  limit_nanos: number | null;
  committed_nanos: number;
  held_nanos: number;
  state: AccountState;
}

interface AttemptRow {
  attempt_key: string;
  thread_id: string;
  request_sha256: string;
  state: AttemptState;
  reserved_nanos: number;
  charged_nanos: number | null;
  basis: ChargeBasis | null;
  reason: string | null;
  created_ms: number;
  settled_ms: number | null;
}

interface DebitRow {
  attempt_key: string;
  account_id: string;
  held_nanos: number;
  committed_nanos: number;
}

const ATTEMPT_COLUMNS =
  'attempt_key, thread_id, request_sha256, state, reserved_nanos, charged_nanos, basis, reason, created_ms, settled_ms';

/**
 * Open (creating when missing) the ledger in a SQLite file, normally
 * `.ai/threads/registry.db`, in WAL mode. Every mutation runs in one
 * `BEGIN IMMEDIATE` transaction, so processes sharing the file serialise on
 * the write lock and a reservation sees every other process's holds.
 */
export function openSqliteBudgetStore(path: string, options: { clock?: Clock } = {}): BudgetStore {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const db = openSqlite(path);
  try {
    configureConnection(db);
    migrateComponent(db, 'ledger', LEDGER_MIGRATIONS);
    return sqliteBudgetStore(db, options);
  } catch (error) {
    db.close();
    throw error;
  }
}

/**
 * The ledger over an open handle whose schema is migrated (see
 * `migrateComponent`); `dispose()` closes the handle.
 */
export function sqliteBudgetStore(
  db: Database.Database,
  options: { clock?: Clock } = {},
): BudgetStore {
  const clock = options.clock ?? systemClock;
  const tx = sqliteTx(db);
  const write = db.transaction(<T>(body: (t: LedgerTx) => T): T => body(tx));
  const run = async <T>(body: (t: LedgerTx) => T): Promise<T> => write.immediate(body) as T;
  const readTx = db.transaction(<T>(body: (t: LedgerTx) => T): T => body(tx));
  // A deferred transaction: a consistent view across the statements of one read.
  const read = <T>(body: (t: LedgerTx) => T): T => readTx(body) as T;

  const snapshotAccounts = db.prepare<[string], AccountRow>(
    'SELECT * FROM account WHERE tree_id = ? ORDER BY account_id',
  );
  const snapshotAttempts = db.prepare<[string], AttemptRow>(
    `SELECT ${ATTEMPT_COLUMNS} FROM attempt WHERE thread_id IN
       (SELECT account_id FROM account WHERE tree_id = ?) ORDER BY attempt_key`,
  );
  const snapshotDebits = db.prepare<[string], DebitRow>(
    `SELECT a.attempt_key, d.account_id, d.held_nanos, d.committed_nanos
       FROM debit d JOIN attempt a USING (attempt_id)
      WHERE a.thread_id IN (SELECT account_id FROM account WHERE tree_id = ?)
      ORDER BY a.attempt_key, d.account_id`,
  );

  return {
    openAccount: (input) => run((t) => openAccountIn(t, input)),
    reserve: (input) => run((t) => reserveIn(t, input, clock.now())),
    markIssued: (key) => run((t) => markIssuedIn(t, key)),
    settle: (key, charge) => run((t) => settleIn(t, key, charge, clock.now())),
    release: (key, reason = 'released') => run((t) => releaseIn(t, key, reason, clock.now())),
    refuse: (key, status) => run((t) => refuseIn(t, key, status, clock.now())),
    close: (threadId) => run((t) => closeIn(t, threadId, clock.now())),
    raiseCommitted: (accountId, nanos) => run((t) => raiseCommittedIn(t, accountId, nanos)),
    setLimit: (accountId, limit) => run((t) => setLimitIn(t, accountId, limit)),
    balances: async (threadId) => read((t) => balancesIn(t, threadId)),
    snapshot: async (treeId) =>
      read((): LedgerSnapshot => ({
        accounts: snapshotAccounts.all(treeId).map(accountOf),
        attempts: snapshotAttempts.all(treeId).map(attemptOf),
        debits: snapshotDebits.all(treeId).map(debitOf),
      })),
    dispose: () => {
      if (db.open) db.close();
    },
  };
}

function sqliteTx(db: Database.Database): LedgerTx {
  const st = {
    account: db.prepare<[string], AccountRow>('SELECT * FROM account WHERE account_id = ?'),
    insertAccount: db.prepare(
      `INSERT INTO account (account_id, tree_id, thread_id, parent_account_id, limit_nanos,
         committed_nanos, held_nanos, state)
       VALUES (@account_id, @tree_id, @thread_id, @parent_account_id, @limit_nanos,
         @committed_nanos, @held_nanos, @state)`,
    ),
    setAccount: db.prepare<[number, number, string, string]>(
      'UPDATE account SET committed_nanos = ?, held_nanos = ?, state = ? WHERE account_id = ?',
    ),
    setAccountLimit: db.prepare<[number | null, string]>(
      'UPDATE account SET limit_nanos = ? WHERE account_id = ?',
    ),
    children: db.prepare<[string], AccountRow>(
      'SELECT * FROM account WHERE parent_account_id = ? ORDER BY account_id',
    ),
    attempt: db.prepare<[string], AttemptRow>(
      `SELECT ${ATTEMPT_COLUMNS} FROM attempt WHERE attempt_key = ?`,
    ),
    insertAttempt: db.prepare(
      `INSERT INTO attempt (${ATTEMPT_COLUMNS}) VALUES (@attempt_key, @thread_id, @request_sha256,
         @state, @reserved_nanos, @charged_nanos, @basis, @reason, @created_ms, @settled_ms)`,
    ),
    setAttemptState: db.prepare<[string, string]>(
      'UPDATE attempt SET state = ? WHERE attempt_key = ?',
    ),
    finishAttempt: db.prepare(
      `UPDATE attempt SET state = @state, charged_nanos = @charged_nanos, basis = @basis,
         reason = @reason, settled_ms = @settled_ms WHERE attempt_key = @attempt_key`,
    ),
    openAttempts: db.prepare<[string], AttemptRow>(
      `SELECT ${ATTEMPT_COLUMNS} FROM attempt
        WHERE thread_id = ? AND state IN ('reserved', 'issued') ORDER BY attempt_key`,
    ),
    debits: db.prepare<[string], DebitRow>(
      `SELECT a.attempt_key, d.account_id, d.held_nanos, d.committed_nanos
         FROM debit d JOIN attempt a USING (attempt_id) WHERE a.attempt_key = ?
        ORDER BY d.rowid`,
    ),
    insertDebit: db.prepare<[string, number, number, string]>(
      `INSERT INTO debit (attempt_id, account_id, held_nanos, committed_nanos)
       SELECT attempt_id, ?, ?, ? FROM attempt WHERE attempt_key = ?`,
    ),
    setDebit: db.prepare<[number, number, string, string]>(
      `UPDATE debit SET held_nanos = ?, committed_nanos = ?
        WHERE account_id = ? AND attempt_id = (SELECT attempt_id FROM attempt WHERE attempt_key = ?)`,
    ),
  };
  return {
    account: (id) => {
      const row = st.account.get(id);
      return row === undefined ? undefined : accountOf(row);
    },
    insertAccount: (a) =>
      void st.insertAccount.run({
        account_id: a.accountId,
        tree_id: a.treeId,
        thread_id: a.threadId,
        parent_account_id: a.parentAccountId,
        limit_nanos: a.limitNanos,
        committed_nanos: a.committedNanos,
        held_nanos: a.heldNanos,
        state: a.state,
      }),
    setAccount: (id, committed, held, state) => void st.setAccount.run(committed, held, state, id),
    setAccountLimit: (id, limit) => void st.setAccountLimit.run(limit, id),
    children: (id) => st.children.all(id).map(accountOf),
    attempt: (key) => {
      const row = st.attempt.get(key);
      return row === undefined ? undefined : attemptOf(row);
    },
    insertAttempt: (a) =>
      void st.insertAttempt.run({
        attempt_key: a.attemptKey,
        thread_id: a.threadId,
        request_sha256: a.requestSha256,
        state: a.state,
        reserved_nanos: a.reservedNanos,
        charged_nanos: a.chargedNanos,
        basis: a.basis,
        reason: a.reason,
        created_ms: a.createdMs,
        settled_ms: a.settledMs,
      }),
    setAttemptState: (key, state) => void st.setAttemptState.run(state, key),
    finishAttempt: (key, end) =>
      void st.finishAttempt.run({
        attempt_key: key,
        state: end.state,
        charged_nanos: end.chargedNanos,
        basis: end.basis,
        reason: end.reason,
        settled_ms: end.settledMs,
      }),
    openAttempts: (threadId) => st.openAttempts.all(threadId).map(attemptOf),
    debits: (key) => st.debits.all(key).map(debitOf),
    insertDebit: (d) =>
      void st.insertDebit.run(d.accountId, d.heldNanos, d.committedNanos, d.attemptKey),
    setDebit: (key, accountId, held, committed) =>
      void st.setDebit.run(held, committed, accountId, key),
  };
}

function accountOf(row: AccountRow): Account {
  return {
    accountId: row.account_id,
    treeId: row.tree_id,
    threadId: row.thread_id,
    parentAccountId: row.parent_account_id,
    limitNanos: row.limit_nanos,
    committedNanos: row.committed_nanos,
    heldNanos: row.held_nanos,
    state: row.state,
  };
}

function attemptOf(row: AttemptRow): Attempt {
  return {
    attemptKey: row.attempt_key,
    threadId: row.thread_id,
    requestSha256: row.request_sha256,
    state: row.state,
    reservedNanos: row.reserved_nanos,
    chargedNanos: row.charged_nanos,
    basis: row.basis,
    reason: row.reason,
    createdMs: row.created_ms,
    settledMs: row.settled_ms,
  };
}

function debitOf(row: DebitRow): Debit {
  return {
    attemptKey: row.attempt_key,
    accountId: row.account_id,
    heldNanos: row.held_nanos,
    committedNanos: row.committed_nanos,
  };
}
