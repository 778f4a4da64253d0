import type Database from 'better-sqlite3';
import { chmodSync, mkdirSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { RyeError, isRyeError } from '../errors/index.js';
import type { ItemType, SpaceName } from '../items/index.js';
import { messageOf, openSqlite } from '../platform/index.js';

/** Bumped whenever the tables change: an index of another version is rebuilt from scratch. */
const SCHEMA_VERSION = 2;

/**
 * bm25 weights per FTS column, in column order (item_id, title, description,
 * category, body): a word in the id or title outranks the same word in the body.
 */
export const BM25_WEIGHTS = [10, 8, 4, 3, 1] as const;

const SCHEMA = `
CREATE TABLE files (
  id INTEGER PRIMARY KEY,
  path TEXT NOT NULL UNIQUE,
  item_type TEXT NOT NULL,
  item_id TEXT NOT NULL,
  space TEXT NOT NULL,
  space_rank INTEGER NOT NULL,
  extension TEXT NOT NULL,
  size INTEGER NOT NULL,
  mtime_ns TEXT NOT NULL,
  ctime_ns TEXT NOT NULL,
  ino TEXT NOT NULL,
  racy INTEGER NOT NULL,
  sha256 TEXT,
  version TEXT,
  title TEXT,
  description TEXT,
  category TEXT,
  problem TEXT,
  shadowed INTEGER NOT NULL DEFAULT 0,
  ambiguous INTEGER NOT NULL DEFAULT 0,
  verdict TEXT,
  verdict_code TEXT,
  coverage TEXT,
  verdict_sha256 TEXT,
  verdict_trust TEXT
);
CREATE INDEX files_item ON files (item_type, item_id, space_rank);
CREATE VIRTUAL TABLE fts USING fts5(
  item_id, title, description, category, body,
  tokenize = 'porter unicode61 remove_diacritics 2'
);
INSERT INTO fts (fts, rank) VALUES ('rank', 'bm25(${BM25_WEIGHTS.join(', ')})');
CREATE TABLE dirs (
  path TEXT PRIMARY KEY,
  parent TEXT,
  space TEXT NOT NULL,
  item_type TEXT NOT NULL,
  prefix TEXT NOT NULL,
  mtime_ns TEXT NOT NULL,
  ctime_ns TEXT NOT NULL,
  ino TEXT NOT NULL,
  racy INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
`;

/** The stat fields and hash a file's row was indexed with. */
export interface IndexedStat {
  readonly id: number;
  readonly size: number;
  readonly mtimeNs: bigint;
  readonly ctimeNs: bigint;
  readonly ino: bigint;
  /** Indexed while its timestamps were too recent to trust: re-hashed on the next search. */
  readonly racy: boolean;
  readonly sha256: string | null;
}

/**
 * A walked folder: the stat it was listed under. While the folder's stat is
 * the same, its entries are (a create, delete or rename in a folder moves its
 * mtime and ctime), so the walk uses the subfolders and files recorded for it.
 */
export interface DirRow {
  readonly path: string;
  /** The folder it was found in; null for a type root. */
  readonly parent: string | null;
  readonly space: SpaceName;
  readonly itemType: ItemType;
  /** The id prefix of its files (`''` at the type root, else ending in `/`). */
  readonly prefix: string;
  readonly mtimeNs: bigint;
  readonly ctimeNs: bigint;
  readonly ino: bigint;
  /** Listed while its timestamps were too recent to trust: listed again by the next walk. */
  readonly racy: boolean;
}

/** One open index: the connection and this process's mirror of its stat rows. */
export interface CatalogDb {
  readonly path: string;
  readonly db: Database.Database;
  /** path → stat row, valid while `dataVersion` matches the connection's; loaded when needed. */
  rows: Map<string, IndexedStat> | null;
  /** path → folder row, valid while `dataVersion` matches. */
  dirs: Map<string, DirRow> | null;
  /** When a walk last stat'ed every file (ns since the epoch), 0n for never. */
  sweptNs: bigint;
  dataVersion: number;
  /** Prepared statements by SQL text. */
  readonly statements: Map<string, Database.Statement>;
}

const open = new Map<string, CatalogDb>();

/**
 * Open (or create) the index at `path`, once per process: the directory is
 * created 0700 and the file 0600, WAL mode lets other processes read while
 * one writes, and a file that is not a database, or one of another schema
 * version, is rebuilt (the index is a cache of the item files).
 *
 * @throws RyeError SEARCH_INDEX_FAILED
 */
export function openCatalogDb(path: string): CatalogDb {
  const cached = open.get(path);
  if (cached !== undefined && cached.db.open) return cached;
  let db: Database.Database;
  try {
    db = connect(path);
  } catch (error) {
    if (!isCorrupt(error)) throw indexFailure(path, error);
    removeIndex(path);
    try {
      db = connect(path);
    } catch (again) {
      throw indexFailure(path, again);
    }
  }
  const handle: CatalogDb = {
    path,
    db,
    rows: null,
    dirs: null,
    sweptNs: 0n,
    dataVersion: -1,
    statements: new Map(),
  };
  open.set(path, handle);
  return handle;
}

/** Close every index this process opened (tests, and a clean exit of long-lived servers). */
export function closeCatalogDbs(): void {
  for (const handle of open.values()) if (handle.db.open) handle.db.close();
  open.clear();
}

/** A prepared statement, cached per connection. */
export function statement(handle: CatalogDb, sql: string): Database.Statement {
  let stmt = handle.statements.get(sql);
  if (stmt === undefined) {
    stmt = handle.db.prepare(sql);
    handle.statements.set(sql, stmt);
  }
  return stmt;
}

/** Run `fn` on the index, turning SQLite failures into SEARCH_INDEX_FAILED. */
export function withIndex<T>(handle: CatalogDb, fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    if (isRyeError(error)) throw error;
    throw indexFailure(handle.path, error);
  }
}

/** How often a cold open may meet another process creating the same index. */
const OPEN_ATTEMPTS = 20;
const OPEN_RETRY_MS = 50;

/**
 * Open the index, retrying while another process is creating it: switching a
 * fresh file to WAL and creating the schema need locks that SQLite refuses
 * with SQLITE_BUSY, without waiting, while the other process holds them.
 */
function connect(path: string): Database.Database {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return connectOnce(path);
    } catch (error) {
      if ((error as { code?: unknown }).code !== 'SQLITE_BUSY' || attempt >= OPEN_ATTEMPTS)
        throw error;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, OPEN_RETRY_MS);
    }
  }
}

function connectOnce(path: string): Database.Database {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const db = openSqlite(path);
  try {
    // Item bodies from every space end up here: readable by the user alone.
    chmodSync(path, 0o600);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('busy_timeout = 5000');
    const version = (): number => db.pragma('user_version', { simple: true }) as number;
    if (version() !== SCHEMA_VERSION) {
      db.transaction(() => {
        // Asked again under the write lock: another process may have just created it.
        if (version() === SCHEMA_VERSION) return;
        db.exec(
          'DROP TABLE IF EXISTS fts; DROP TABLE IF EXISTS files; DROP TABLE IF EXISTS dirs; DROP TABLE IF EXISTS meta;',
        );
        db.exec(SCHEMA);
        db.pragma(`user_version = ${SCHEMA_VERSION}`);
      }).immediate();
    }
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

function isCorrupt(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return code === 'SQLITE_CORRUPT' || code === 'SQLITE_NOTADB';
}

function removeIndex(path: string): void {
  for (const suffix of ['', '-wal', '-shm']) rmSync(path + suffix, { force: true });
}

function indexFailure(path: string, error: unknown): RyeError {
  return new RyeError(
    'SEARCH_INDEX_FAILED',
    `Cannot use the search index ${path}: ${messageOf(error)}`,
    { path },
    { cause: error },
  );
}
