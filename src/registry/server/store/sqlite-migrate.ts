import type Database from 'better-sqlite3';
import { MIGRATIONS, MIGRATIONS_TABLE } from './migrations.js';

/**
 * Bring a SQLite database up to the newest schema. Each pending migration runs
 * in its own IMMEDIATE transaction (the write lock is taken first, so two
 * processes opening one file at once apply it once) and is recorded there.
 */
export function migrateSqlite(db: Database.Database): void {
  db.exec(MIGRATIONS_TABLE);
  const applied = db.prepare<[number], { version: number }>(
    'SELECT version FROM schema_migrations WHERE version = ?',
  );
  const record = db.prepare<[number, string]>(
    'INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)',
  );
  for (const migration of MIGRATIONS) {
    const apply = db.transaction(() => {
      if (applied.get(migration.version) !== undefined) return;
      db.exec(migration.sqlite);
      record.run(migration.version, new Date().toISOString());
    });
    apply.immediate();
  }
}
