import type Database from 'better-sqlite3';

/**
 * `.ai/threads/registry.db` holds several components' tables (the ledger
 * here, the thread registry in `store/registry-db.ts`). Each component keeps
 * its own numbered migrations in `rye_migrations`, so either may open the file
 * first and later components join it without touching the others.
 */
export interface Migration {
  readonly version: number;
  readonly sql: string;
}

const MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS rye_migrations (
  component TEXT NOT NULL,
  version INTEGER NOT NULL,
  applied_at TEXT NOT NULL,
  PRIMARY KEY (component, version)
) STRICT`;

/**
 * The ledger tables of THREADS.md §6 with their CHECK constraints. The
 * constraint `committed + held <= limit` repeats the reservation rule in the
 * database, so a bug in the rules fails a transaction instead of overspending.
 */
export const LEDGER_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    sql: `
CREATE TABLE account (
  account_id TEXT PRIMARY KEY,
  tree_id TEXT NOT NULL,
  thread_id TEXT NOT NULL UNIQUE,
  parent_account_id TEXT NULL REFERENCES account (account_id),
  limit_nanos INTEGER NULL CHECK (limit_nanos IS NULL OR limit_nanos >= 0),
  committed_nanos INTEGER NOT NULL CHECK (committed_nanos >= 0),
  held_nanos INTEGER NOT NULL CHECK (held_nanos >= 0),
  state TEXT NOT NULL CHECK (state IN ('active', 'closed')),
  CHECK (limit_nanos IS NULL OR committed_nanos + held_nanos <= limit_nanos)
) STRICT;
CREATE INDEX account_parent ON account (parent_account_id);
CREATE INDEX account_tree ON account (tree_id);
CREATE TABLE attempt (
  attempt_id INTEGER PRIMARY KEY,
  attempt_key TEXT NOT NULL UNIQUE,
  thread_id TEXT NOT NULL REFERENCES account (account_id),
  request_sha256 TEXT NOT NULL CHECK (length(request_sha256) = 64),
  state TEXT NOT NULL CHECK (state IN
    ('denied', 'reserved', 'issued', 'settled', 'released', 'charged_max', 'bound_violated')),
  reserved_nanos INTEGER NOT NULL CHECK (reserved_nanos >= 0),
  charged_nanos INTEGER NULL CHECK (charged_nanos IS NULL OR charged_nanos >= 0),
  basis TEXT NULL CHECK (basis IS NULL OR basis IN ('provider_usage', 'reserved_max')),
  reason TEXT NULL,
  created_ms INTEGER NOT NULL,
  settled_ms INTEGER NULL
) STRICT;
CREATE INDEX attempt_open ON attempt (thread_id) WHERE state IN ('reserved', 'issued');
CREATE TABLE debit (
  attempt_id INTEGER NOT NULL REFERENCES attempt (attempt_id),
  account_id TEXT NOT NULL REFERENCES account (account_id),
  held_nanos INTEGER NOT NULL CHECK (held_nanos >= 0),
  committed_nanos INTEGER NOT NULL CHECK (committed_nanos >= 0),
  PRIMARY KEY (attempt_id, account_id)
) STRICT;
`,
  },
];

/**
 * Apply `component`'s pending migrations, each in its own IMMEDIATE
 * transaction (the write lock first, so two processes opening the file at
 * once apply each migration once).
 */
export function migrateComponent(
  db: Database.Database,
  component: string,
  migrations: readonly Migration[],
): void {
  db.exec(MIGRATIONS_TABLE);
  const applied = db.prepare<[string, number], { version: number }>(
    'SELECT version FROM rye_migrations WHERE component = ? AND version = ?',
  );
  const record = db.prepare<[string, number, string]>(
    'INSERT INTO rye_migrations (component, version, applied_at) VALUES (?, ?, ?)',
  );
  for (const migration of migrations) {
    db.transaction(() => {
      if (applied.get(component, migration.version) !== undefined) return;
      db.exec(migration.sql);
      record.run(component, migration.version, new Date().toISOString());
    }).immediate();
  }
}

/**
 * Pragmas every handle on registry.db uses: WAL (readers never block the
 * writer), a busy timeout so a second process waits for the write lock
 * instead of failing, and foreign keys on.
 */
export function configureConnection(db: Database.Database): void {
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 10000');
  db.pragma('foreign_keys = ON');
}
