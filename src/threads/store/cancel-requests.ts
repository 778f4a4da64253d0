import type Database from 'better-sqlite3';
import type { Migration } from '../budget/index.js';

/**
 * Cancel requests across processes (docs/threads.md "Cancel"): `rye thread
 * cancel` records one in registry.db, and the process that owns the thread
 * polls for it. Its own migration component (`cancel`), so it joins
 * registry.db without renumbering the thread index's migrations.
 */
export const CANCEL_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    sql: `
CREATE TABLE cancel_requests (
  thread_id TEXT PRIMARY KEY REFERENCES threads (thread_id),
  reason TEXT NOT NULL,
  requested_ms INTEGER NOT NULL
) STRICT;
`,
  },
];

export interface CancelRequest {
  readonly threadId: string;
  readonly reason: string;
  readonly requestedMs: number;
}

/** The cancel requests of one registry.db handle (statements prepared once, for polling). */
export class CancelRequests {
  readonly #put;
  readonly #get;

  constructor(db: Database.Database) {
    this.#put = db.prepare<[string, string, number]>(
      `INSERT INTO cancel_requests (thread_id, reason, requested_ms) VALUES (?, ?, ?)
       ON CONFLICT (thread_id) DO UPDATE SET reason = excluded.reason, requested_ms = excluded.requested_ms`,
    );
    this.#get = db.prepare<[string], { reason: string; requested_ms: number }>(
      'SELECT reason, requested_ms FROM cancel_requests WHERE thread_id = ?',
    );
  }

  /** Record (or re-stamp) a request; the thread must be indexed. */
  request(threadId: string, reason: string, nowMs: number): void {
    this.#put.run(threadId, reason, nowMs);
  }

  /** The request for a thread, if any. */
  get(threadId: string): CancelRequest | undefined {
    const row = this.#get.get(threadId);
    return row === undefined
      ? undefined
      : { threadId, reason: row.reason, requestedMs: row.requested_ms };
  }
}
