import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type Database from 'better-sqlite3';
import { openSqlite } from '../../platform/index.js';
import { RyeError } from '../../errors/index.js';
import {
  LEDGER_MIGRATIONS,
  configureConnection,
  migrateComponent,
  sqliteBudgetStore,
  type BudgetStore,
  type Migration,
} from '../budget/index.js';
import { parseThreadId, systemClock, type Clock } from '../../ids/index.js';
import { CANCEL_MIGRATIONS } from './cancel-requests.js';
import { THREAD_STATUSES, type ThreadStatus } from './thread-status.js';

export type EdgeKind = 'spawn' | 'hook' | 'continuation';

/** One row of the thread index. The signed thread.json wins where they disagree. */
export interface ThreadRow {
  readonly threadId: string;
  readonly treeId: string;
  readonly parentId: string | null;
  readonly directiveId: string;
  readonly status: ThreadStatus;
  readonly spendNanos: number;
  readonly tokensIn: number;
  readonly tokensOut: number;
  readonly turns: number;
  readonly createdMs: number;
  readonly updatedMs: number;
}

export interface EdgeRow {
  readonly parentId: string;
  readonly childId: string;
  readonly kind: EdgeKind;
  readonly createdMs: number;
}

const statusList = THREAD_STATUSES.map((s) => `'${s}'`).join(', ');

/** The thread index tables, joining the ledger's in registry.db (THREADS.md §8). */
export const REGISTRY_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    sql: `
CREATE TABLE threads (
  thread_id TEXT PRIMARY KEY,
  tree_id TEXT NOT NULL,
  parent_id TEXT NULL REFERENCES threads (thread_id),
  directive_id TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN (${statusList})),
  spend_nanos INTEGER NOT NULL DEFAULT 0 CHECK (spend_nanos >= 0),
  tokens_in INTEGER NOT NULL DEFAULT 0 CHECK (tokens_in >= 0),
  tokens_out INTEGER NOT NULL DEFAULT 0 CHECK (tokens_out >= 0),
  turns INTEGER NOT NULL DEFAULT 0 CHECK (turns >= 0),
  created_ms INTEGER NOT NULL,
  updated_ms INTEGER NOT NULL
) STRICT;
CREATE INDEX threads_tree ON threads (tree_id);
CREATE INDEX threads_status ON threads (status);
CREATE TABLE edges (
  parent_id TEXT NOT NULL REFERENCES threads (thread_id),
  child_id TEXT NOT NULL REFERENCES threads (thread_id),
  kind TEXT NOT NULL CHECK (kind IN ('spawn', 'hook', 'continuation')),
  created_ms INTEGER NOT NULL,
  PRIMARY KEY (parent_id, child_id)
) STRICT;
CREATE INDEX edges_child ON edges (child_id);
`,
  },
  {
    // The current token id of each thread (THREADS.md §4 check 6): a token
    // verifies only while its jti is its thread's current one and the thread runs.
    version: 2,
    sql: `
ALTER TABLE threads ADD COLUMN jti TEXT NULL;
CREATE UNIQUE INDEX threads_jti ON threads (jti) WHERE jti IS NOT NULL;
`,
  },
  {
    // The ceiling token a root was started under (a process held to a minted
    // RYE_CAP_TOKEN): the threads that token's holder may see and control
    // from the CLI are the trees it started (docs/capabilities.md).
    version: 3,
    sql: `
ALTER TABLE threads ADD COLUMN ceiling_jti TEXT NULL;
`,
  },
];

/** What the registry says about a token id: whose it is and how that thread stands. */
export interface JtiRow {
  readonly threadId: string;
  readonly status: ThreadStatus;
}

interface ThreadDbRow {
  thread_id: string;
  tree_id: string;
  parent_id: string | null;
  directive_id: string;
  status: ThreadStatus;
  spend_nanos: number;
  tokens_in: number;
  tokens_out: number;
  turns: number;
  created_ms: number;
  updated_ms: number;
}

/**
 * `.ai/threads/registry.db`: the thread index (threads, edges) and the budget
 * ledger in one SQLite file (WAL, every mutation in `BEGIN IMMEDIATE`).
 */
export class RegistryDb {
  readonly db: Database.Database;
  readonly #clock: Clock;
  readonly #st;

  private constructor(db: Database.Database, clock: Clock) {
    this.db = db;
    this.#clock = clock;
    this.#st = {
      insert: db.prepare(
        `INSERT INTO threads (thread_id, tree_id, parent_id, directive_id, status, ceiling_jti, created_ms, updated_ms)
         VALUES (@thread_id, @tree_id, @parent_id, @directive_id, @status, @ceiling_jti, @now, @now)`,
      ),
      status: db.prepare<[string, number, string]>(
        'UPDATE threads SET status = ?, updated_ms = ? WHERE thread_id = ?',
      ),
      cost: db.prepare(
        `UPDATE threads SET spend_nanos = @spend_nanos, tokens_in = @tokens_in, tokens_out = @tokens_out,
           turns = @turns, updated_ms = @now WHERE thread_id = @thread_id`,
      ),
      jti: db.prepare<[string | null, number, string]>(
        'UPDATE threads SET jti = ?, updated_ms = ? WHERE thread_id = ?',
      ),
      byJti: db.prepare<[string], { thread_id: string; status: ThreadStatus }>(
        'SELECT thread_id, status FROM threads WHERE jti = ?',
      ),
      edge: db.prepare(
        'INSERT INTO edges (parent_id, child_id, kind, created_ms) VALUES (?, ?, ?, ?)',
      ),
      get: db.prepare<[string], ThreadDbRow>('SELECT * FROM threads WHERE thread_id = ?'),
      lineage: db.prepare<[string], { parent_id: string | null; ceiling_jti: string | null }>(
        'SELECT parent_id, ceiling_jti FROM threads WHERE thread_id = ?',
      ),
      all: db.prepare<[], ThreadDbRow>('SELECT * FROM threads ORDER BY created_ms, thread_id'),
      edgesOf: db.prepare<
        [string],
        { parent_id: string; child_id: string; kind: EdgeKind; created_ms: number }
      >('SELECT * FROM edges WHERE parent_id = ? ORDER BY created_ms, child_id'),
    };
  }

  /**
   * Open (creating when missing) registry.db with both components migrated.
   * @throws SqliteError when the file is not a database.
   */
  static open(path: string, options: { clock?: Clock } = {}): RegistryDb {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    const db = openSqlite(path);
    try {
      configureConnection(db);
      migrateComponent(db, 'ledger', LEDGER_MIGRATIONS);
      migrateComponent(db, 'threads', REGISTRY_MIGRATIONS);
      migrateComponent(db, 'cancel', CANCEL_MIGRATIONS);
      return new RegistryDb(db, options.clock ?? systemClock);
    } catch (error) {
      db.close();
      throw error;
    }
  }

  /** The budget ledger on the same handle; its `dispose()` closes the file. */
  budgetStore(): BudgetStore {
    return sqliteBudgetStore(this.db, { clock: this.#clock });
  }

  /**
   * Index a new thread (and its edge from `parentId`, in the same transaction).
   * @throws RyeError THREAD_ID_INVALID; SqliteError on a duplicate id or a missing parent.
   */
  insertThread(row: {
    threadId: string;
    treeId: string;
    parentId: string | null;
    directiveId: string;
    status?: ThreadStatus;
    edge?: EdgeKind;
    /** A root started under a ceiling token: that token's jti. */
    ceilingJti?: string;
  }): void {
    const now = this.#clock.now();
    this.#write(() => {
      this.#st.insert.run({
        thread_id: parseThreadId(row.threadId),
        tree_id: parseThreadId(row.treeId),
        parent_id: row.parentId === null ? null : parseThreadId(row.parentId),
        directive_id: row.directiveId,
        status: row.status ?? 'created',
        ceiling_jti: row.ceilingJti ?? null,
        now,
      });
      if (row.parentId !== null) {
        this.#st.edge.run(row.parentId, row.threadId, row.edge ?? 'spawn', now);
      }
    });
  }

  /**
   * The thread's ancestry, nearest first: its parent, the parent's parent, up
   * to its root, then the ceiling jti its root was started under (null when
   * none). Undefined when the thread is not indexed.
   */
  lineageOf(threadId: string): { ancestors: string[]; ceilingJti: string | null } | undefined {
    let row = this.#st.lineage.get(threadId);
    if (row === undefined) return undefined;
    const ancestors: string[] = [];
    // parent_id references an indexed thread and a thread is never its own
    // ancestor (ids are new at insert); the bound only guards a hand-made file.
    while (row.parent_id !== null && ancestors.length < 10_000) {
      ancestors.push(row.parent_id);
      const parent = this.#st.lineage.get(row.parent_id);
      if (parent === undefined) break;
      row = parent;
    }
    return { ancestors, ceilingJti: row.ceiling_jti };
  }

  /** Record an edge between two indexed threads (a continuation, say). */
  addEdge(parentId: string, childId: string, kind: EdgeKind): void {
    const now = this.#clock.now();
    this.#write(() =>
      this.#st.edge.run(parseThreadId(parentId), parseThreadId(childId), kind, now),
    );
  }

  /**
   * Make `jti` the thread's current token id (a new token, or a resume's
   * rotation: the old one stops verifying).
   * @throws RyeError THREAD_NOT_FOUND
   */
  setJti(threadId: string, jti: string): void {
    this.#write(() => {
      if (this.#st.jti.run(jti, this.#clock.now(), threadId).changes === 0)
        throw notFound(threadId);
    });
  }

  /** The thread whose current token id is `jti`, if any. */
  byJti(jti: string): JtiRow | undefined {
    const row = this.#st.byJti.get(jti);
    return row === undefined ? undefined : { threadId: row.thread_id, status: row.status };
  }

  /** @throws RyeError THREAD_NOT_FOUND */
  setStatus(threadId: string, status: ThreadStatus): void {
    this.#write(() => {
      if (this.#st.status.run(status, this.#clock.now(), threadId).changes === 0)
        throw notFound(threadId);
    });
  }

  /** @throws RyeError THREAD_NOT_FOUND */
  setCost(
    threadId: string,
    cost: { spend_nanos: number; tokens_in: number; tokens_out: number; turns: number },
  ): void {
    this.#write(() => {
      const { spend_nanos, tokens_in, tokens_out, turns } = cost;
      const result = this.#st.cost.run({
        thread_id: threadId,
        spend_nanos,
        tokens_in,
        tokens_out,
        turns,
        now: this.#clock.now(),
      });
      if (result.changes === 0) throw notFound(threadId);
    });
  }

  get(threadId: string): ThreadRow | undefined {
    const row = this.#st.get.get(threadId);
    return row === undefined ? undefined : rowOf(row);
  }

  /** Threads, oldest first, optionally of one status and/or tree. */
  list(filter: { status?: ThreadStatus; tree?: string } = {}): ThreadRow[] {
    return this.#st.all
      .all()
      .filter(
        (r) =>
          (filter.status === undefined || r.status === filter.status) &&
          (filter.tree === undefined || r.tree_id === filter.tree),
      )
      .map(rowOf);
  }

  /** The edges from a thread to its children. */
  edgesFrom(threadId: string): EdgeRow[] {
    return this.#st.edgesOf.all(threadId).map((e) => ({
      parentId: e.parent_id,
      childId: e.child_id,
      kind: e.kind,
      createdMs: e.created_ms,
    }));
  }

  close(): void {
    if (this.db.open) this.db.close();
  }

  #write(body: () => void): void {
    this.db.transaction(body).immediate();
  }
}

function rowOf(r: ThreadDbRow): ThreadRow {
  return {
    threadId: r.thread_id,
    treeId: r.tree_id,
    parentId: r.parent_id,
    directiveId: r.directive_id,
    status: r.status,
    spendNanos: r.spend_nanos,
    tokensIn: r.tokens_in,
    tokensOut: r.tokens_out,
    turns: r.turns,
    createdMs: r.created_ms,
    updatedMs: r.updated_ms,
  };
}

function notFound(threadId: string): RyeError {
  return new RyeError('THREAD_NOT_FOUND', `Cannot find thread ${threadId} in the registry`, {
    thread: threadId,
  });
}
