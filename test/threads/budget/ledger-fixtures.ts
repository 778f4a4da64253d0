import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import {
  memoryBudgetStore,
  openSqliteBudgetStore,
  type BudgetStore,
  type LedgerSnapshot,
} from '../../../src/threads/budget/index.js';
import { fixedClock, newThreadId } from '../../../src/ids/index.js';

const dirs: string[] = [];
const stores: BudgetStore[] = [];
afterEach(() => {
  for (const store of stores.splice(0)) store.dispose();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A fresh temp folder, removed after the test. */
export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'rye-ledger-'));
  dirs.push(dir);
  return dir;
}

export const clock = fixedClock(1_767_225_600_000, 1);

/** The two stores every ledger test runs against. */
export const STORE_KINDS: readonly [string, () => BudgetStore][] = [
  ['memory', () => track(memoryBudgetStore({ clock }))],
  ['sqlite', () => track(openSqliteBudgetStore(join(tempDir(), 'registry.db'), { clock }))],
];

function track(store: BudgetStore): BudgetStore {
  stores.push(store);
  return store;
}

let counter = 0;
/** A fresh, valid thread id with the given leaf. */
export function tid(leaf: string): string {
  counter += 1;
  const n = counter;
  return newThreadId(leaf, fixedClock(1_767_225_600_000 + n), (size) =>
    Uint8Array.from({ length: size }, (_, i) => (n >> (8 * (i % 4))) & 0xff),
  );
}

export const SHA = 'ab'.repeat(32);

/**
 * The ledger invariants of THREADS.md §6 over one tree's rows; returns the
 * problems found (empty when they all hold).
 */
export function ledgerProblems(snapshot: LedgerSnapshot): string[] {
  const problems: string[] = [];
  for (const account of snapshot.accounts) {
    const own = snapshot.debits.filter((d) => d.accountId === account.accountId);
    const held = own.reduce((s, d) => s + d.heldNanos, 0);
    const committed = own.reduce((s, d) => s + d.committedNanos, 0);
    if (held !== account.heldNanos)
      problems.push(`${account.accountId}: held ${account.heldNanos} ≠ debits ${held}`);
    if (committed !== account.committedNanos) {
      problems.push(
        `${account.accountId}: committed ${account.committedNanos} ≠ debits ${committed}`,
      );
    }
    if (
      account.limitNanos !== null &&
      account.committedNanos + account.heldNanos > account.limitNanos
    ) {
      problems.push(
        `${account.accountId}: ${account.committedNanos} + ${account.heldNanos} > ${account.limitNanos}`,
      );
    }
    if (account.heldNanos < 0 || account.committedNanos < 0)
      problems.push(`${account.accountId}: negative`);
  }
  const root = snapshot.accounts.find((a) => a.parentAccountId === null);
  if (root !== undefined) {
    // The root's committed is its own spend plus every descendant's.
    const committedOf = (key: string): number =>
      snapshot.debits.find((d) => d.attemptKey === key && d.accountId === root.accountId)
        ?.committedNanos ?? 0;
    const total = snapshot.attempts.reduce((s, a) => s + committedOf(a.attemptKey), 0);
    const perThread = snapshot.accounts.reduce(
      (s, account) =>
        s +
        snapshot.debits
          .filter((d) => d.accountId === account.accountId)
          .filter(
            (d) =>
              snapshot.attempts.find((a) => a.attemptKey === d.attemptKey)?.threadId ===
              account.threadId,
          )
          .reduce((t, d) => t + d.committedNanos, 0),
      0,
    );
    if (total !== root.committedNanos || perThread !== root.committedNanos) {
      problems.push(`root committed ${root.committedNanos} ≠ own + descendants ${perThread}`);
    }
  }
  return problems;
}
