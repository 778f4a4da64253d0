import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { fixedClock } from '../../../src/ids/index.js';
import { RegistryDb, registryDbPath } from '../../../src/threads/store/index.js';
import { openSqliteBudgetStore } from '../../../src/threads/budget/index.js';
import { expectRyeError } from '../support.js';
import { tempProject, threadId } from './store-fixtures.js';

function open(project = tempProject()): { db: RegistryDb; project: string } {
  return { db: RegistryDb.open(registryDbPath(project), { clock: fixedClock(1000, 1) }), project };
}

describe('RegistryDb', () => {
  it('indexes threads and their edges, and filters by status and tree', () => {
    const { db } = open();
    const root = threadId('build_crud_app');
    const child = threadId('implement_feature');
    const hook = threadId('build_and_serve');
    const other = threadId('other');
    db.insertThread({
      threadId: root,
      treeId: root,
      parentId: null,
      directiveId: 'apps/build_crud_app',
      status: 'running',
    });
    db.insertThread({
      threadId: child,
      treeId: root,
      parentId: root,
      directiveId: 'apps/implement_feature',
    });
    db.insertThread({
      threadId: hook,
      treeId: root,
      parentId: root,
      directiveId: 'apps/build_and_serve',
      edge: 'hook',
    });
    db.insertThread({ threadId: other, treeId: other, parentId: null, directiveId: 'x' });
    db.setStatus(child, 'completed');
    db.setCost(child, { spend_nanos: 1234, tokens_in: 10, tokens_out: 5, turns: 2 });

    expect(db.get(child)).toMatchObject({
      status: 'completed',
      spendNanos: 1234,
      parentId: root,
      treeId: root,
      turns: 2,
    });
    expect(db.list({ tree: root }).map((r) => r.threadId)).toEqual([root, child, hook]);
    expect(db.list({ status: 'created' }).map((r) => r.threadId)).toEqual([hook, other]);
    expect(db.edgesFrom(root).map((e) => [e.childId, e.kind])).toEqual([
      [child, 'spawn'],
      [hook, 'hook'],
    ]);
    db.addEdge(child, other, 'continuation');
    expect(db.edgesFrom(child).map((e) => e.kind)).toEqual(['continuation']);
    db.close();
  });

  it('refuses bad ids, unknown threads, unknown statuses and dangling parents', () => {
    const { db } = open();
    const root = threadId();
    expectRyeError(
      () => db.insertThread({ threadId: '../x', treeId: root, parentId: null, directiveId: 'd' }),
      'THREAD_ID_INVALID',
    );
    expectRyeError(() => db.setStatus(root, 'running'), 'THREAD_NOT_FOUND');
    expectRyeError(
      () => db.setCost(root, { spend_nanos: 1, tokens_in: 0, tokens_out: 0, turns: 0 }),
      'THREAD_NOT_FOUND',
    );
    db.insertThread({ threadId: root, treeId: root, parentId: null, directiveId: 'd' });
    expect(() => db.setStatus(root, 'paused' as 'running')).toThrow(/CHECK constraint/);
    expect(() =>
      db.insertThread({
        threadId: threadId(),
        treeId: root,
        parentId: threadId(),
        directiveId: 'd',
      }),
    ).toThrow(/FOREIGN KEY/);
    expect(db.list()).toHaveLength(1);
    db.close();
  });

  it('shares registry.db with the ledger, in either opening order, and keeps its rows on reopen', async () => {
    const project = tempProject();
    const path = registryDbPath(project);
    const ledger = openSqliteBudgetStore(path);
    const root = threadId();
    await ledger.openAccount({
      threadId: root,
      treeId: root,
      parentThreadId: null,
      limitNanos: 100,
    });
    ledger.dispose();

    const first = RegistryDb.open(path);
    first.insertThread({ threadId: root, treeId: root, parentId: null, directiveId: 'd' });
    const store = first.budgetStore();
    expect((await store.balances(root))[0]?.limitNanos).toBe(100);
    first.close();

    const again = RegistryDb.open(path);
    expect(again.get(root)?.directiveId).toBe('d');
    again.close();

    const raw = new Database(path, { readonly: true });
    const migrations = raw
      .prepare('SELECT component, version FROM rye_migrations ORDER BY component')
      .all();
    expect(migrations).toEqual([
      { component: 'cancel', version: 1 },
      { component: 'ledger', version: 1 },
      { component: 'threads', version: 1 },
      { component: 'threads', version: 2 },
      { component: 'threads', version: 3 },
    ]);
    expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
    raw.close();
  });
});
