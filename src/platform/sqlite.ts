import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

/*
 * Why every SQLite database goes through here.
 *
 * better-sqlite3's native objects (Database, Statement, StatementIterator) are
 * node::ObjectWrap instances. From Node 24 on, ObjectWrap registers an
 * environment cleanup hook when it is created and removes it in its
 * destructor, which looks the Environment up from the isolate's *current
 * context*. When the garbage collector finalizes such an object while no
 * context is entered (a GC started from a microtask checkpoint under I/O, for
 * one), that lookup is null and Node aborts the whole process:
 * `Assertion failed: (env) != nullptr` in RemoveEnvironmentCleanupHook, under
 * `Statement::~Statement()`. The registry server died this way under 50
 * parallel pushes on Node 24.21 (issue 18). better-sqlite3 13 is reported to
 * fix it but needs Node >= 22.
 *
 * So no such object is ever left to the garbage collector: every database
 * opened here, and every statement prepared on it, is kept reachable for the
 * life of the process. Statements are cached by their SQL text (the SQL the
 * project runs is a fixed set, so the cache is bounded), `pragma()` goes
 * through that cache too (the library's own prepares a fresh native statement
 * on every call), and `iterate()` is not used (each call makes a native
 * iterator that could only be collected): test/platform/sqlite.test.ts scans
 * the sources for all three rules.
 */

type Database = BetterSqlite3.Database;
type Statement = BetterSqlite3.Statement<unknown[], unknown>;

const retained = new Set<Database>();
let constructor: typeof BetterSqlite3 | undefined;

/** Loaded on first use: commands that never open a database never load the native module. */
function load(): typeof BetterSqlite3 {
  constructor ??= createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;
  return constructor;
}

/**
 * Open (or create) a SQLite database whose native objects are never garbage
 * collected: `prepare()` returns one cached statement per SQL text and
 * `pragma()` uses that cache. Never call `iterate()`; do not toggle `pluck`/`raw`/`expand` on
 * a statement: it is shared by every caller preparing the same SQL.
 *
 * @throws whatever better-sqlite3 throws on open (SqliteError, TypeError)
 */
export function openSqlite(path: string, options?: BetterSqlite3.Options): Database {
  const Sqlite = load();
  const db = new Sqlite(path, options);
  retained.add(db);
  const cache = new Map<string, Statement>();
  const prepare = db.prepare.bind(db) as (sql: string) => Statement;
  const cachedPrepare = (sql: string): Statement => {
    let statement = cache.get(sql);
    if (statement === undefined) {
      statement = prepare(sql);
      cache.set(sql, statement);
    }
    return statement;
  };
  db.prepare = cachedPrepare as Database['prepare'];
  db.pragma = ((source: string, pragmaOptions?: BetterSqlite3.PragmaOptions): unknown => {
    const statement = cachedPrepare(`PRAGMA ${source}`);
    if (!statement.reader) {
      statement.run();
      return pragmaOptions?.simple === true ? undefined : [];
    }
    if (pragmaOptions?.simple !== true) return statement.all();
    const row = statement.get() as Record<string, unknown> | undefined;
    return row === undefined ? undefined : Object.values(row)[0];
  }) as Database['pragma'];
  return db;
}
