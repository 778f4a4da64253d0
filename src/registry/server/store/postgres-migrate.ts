import type pg from 'pg';
import { MIGRATIONS, MIGRATIONS_TABLE } from './migrations.js';
import { inTransaction } from './postgres-transaction.js';

/**
 * One advisory lock key for all of rye's migrations ('rye' + 'mig' in ASCII).
 * Held per transaction, so two instances starting at once apply each
 * migration once, one after the other.
 */
const MIGRATION_LOCK = 0x7279656d6967;

const lock = `SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`;

/**
 * Bring a PostgreSQL database (and rye's schema in it, when named) up to the
 * newest schema: each pending migration in its own transaction, under the
 * advisory lock, recorded in `schema_migrations`.
 */
export async function migratePostgres(pool: pg.Pool, schema: string | null): Promise<void> {
  await inTransaction(pool, async (client) => {
    await client.query(lock);
    // The name was checked to be a plain lowercase identifier (postgres-url.ts).
    if (schema !== null) await client.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    await client.query(MIGRATIONS_TABLE);
  });
  for (const migration of MIGRATIONS) {
    await inTransaction(pool, async (client) => {
      await client.query(lock);
      const done = await client.query('SELECT 1 FROM schema_migrations WHERE version = $1', [
        migration.version,
      ]);
      if (done.rowCount !== 0) return;
      await client.query(migration.postgres);
      await client.query('INSERT INTO schema_migrations (version, applied_at) VALUES ($1, $2)', [
        migration.version,
        new Date().toISOString(),
      ]);
    });
  }
}
