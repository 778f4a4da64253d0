import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { openSqliteBudgetStore } from '../../../src/threads/budget/index.js';
import { ledgerProblems, tempDir, tid } from './ledger-fixtures.js';

const CHILD = fileURLToPath(new URL('./fixtures/ledger-race-child.ts', import.meta.url));

interface Racer {
  ready: Promise<void>;
  done: Promise<{ granted: number; denied: number; committed: number }>;
}

function racer(db: string, thread: string, attempts: number, seed: number, go: string): Racer {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', CHILD, db, thread, String(attempts), String(seed), go],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  let err = '';
  const ready = new Promise<void>((resolve) => {
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      err += d;
      if (err.includes('ready')) resolve();
    });
  });
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  const done = new Promise<{ granted: number; denied: number; committed: number }>(
    (resolve, reject) => {
      child.once('error', reject);
      child.once('exit', (code) => {
        if (code === 0)
          resolve(JSON.parse(out.trim()) as { granted: number; denied: number; committed: number });
        else reject(new Error(`racer exited ${code}: ${err}`));
      });
    },
  );
  return { ready, done };
}

describe('the SQLite ledger shared by two processes', () => {
  it('never lets racing processes overspend the shared root', { timeout: 60_000 }, async () => {
    const db = join(tempDir(), 'threads', 'registry.db');
    const store = openSqliteBudgetStore(db);
    const root = tid('root');
    const a = tid('racer_a');
    const b = tid('racer_b');
    const limit = 4000;
    await store.openAccount({
      threadId: root,
      treeId: root,
      parentThreadId: null,
      limitNanos: limit,
    });
    await store.openAccount({ threadId: a, treeId: root, parentThreadId: root, limitNanos: null });
    await store.openAccount({ threadId: b, treeId: root, parentThreadId: root, limitNanos: null });

    const go = join(tempDir(), 'go');
    const racers = [racer(db, a, 400, 7, go), racer(db, b, 400, 11, go)];
    await Promise.all(racers.map((r) => r.ready));
    writeFileSync(go, '');
    const [ra, rb] = await Promise.all(racers.map((r) => r.done));
    if (ra === undefined || rb === undefined) throw new Error('a racer is missing');

    const snapshot = await store.snapshot(root);
    store.dispose();
    expect(ledgerProblems(snapshot)).toEqual([]);
    const rootRow = snapshot.accounts.find((x) => x.accountId === root);
    expect(rootRow?.committedNanos).toBe(ra.committed + rb.committed);
    expect(rootRow?.committedNanos).toBeLessThanOrEqual(limit);
    expect(rootRow?.heldNanos).toBe(0);
    // The ceiling was reached: some reservations were granted and some denied.
    // (Which racer got how many is the scheduler's business, not an invariant:
    // one may use the whole budget before the other's first attempt.)
    expect(ra.granted + rb.granted).toBeGreaterThan(0);
    expect(ra.denied + rb.denied).toBeGreaterThan(0);
    expect(snapshot.attempts).toHaveLength(800);
  });
});
