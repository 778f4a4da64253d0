import { SPACE_NAMES } from '../items/index.js';
import type { ItemFile } from './enumerate.js';
import type { IndexRecord } from './extract.js';
import { statement, withIndex, type CatalogDb, type DirRow, type IndexedStat } from './index-db.js';
import { SWEPT_KEY, dataVersionOf } from './mirror.js';
import { parentOf } from './walk.js';

/** One file to write: its content changed (or it is new), or only its stat did. */
export type Change =
  | {
      readonly kind: 'content';
      readonly file: ItemFile;
      readonly racy: boolean;
      /** The row this path had when the change was planned; undefined for a new path. */
      readonly row: IndexedStat | undefined;
      readonly record: IndexRecord;
    }
  | {
      readonly kind: 'stat';
      readonly file: ItemFile;
      readonly racy: boolean;
      readonly sha256: string;
    };

/** Everything one refresh writes, in one transaction. */
export interface IndexWrite {
  readonly changes: readonly Change[];
  /** Paths of files that are gone. */
  readonly removed: readonly string[];
  /** Folder rows to record (folders just listed). */
  readonly listed: readonly DirRow[];
  /** Folder rows to delete. */
  readonly goneDirs: readonly string[];
  /** Set when every file was stat'ed: the sweep time to record. */
  readonly sweptNs: bigint | null;
}

const FILE_VALUES = `path, item_type, item_id, space, space_rank, extension, size, mtime_ns,
  ctime_ns, ino, racy, sha256, version, title, description, category, problem`;
const INSERT = `INSERT INTO files (${FILE_VALUES}) VALUES (${Array(17).fill('?').join(', ')})`;
// A plain INSERT that yields to an existing row: an UPSERT with RETURNING
// costs several times more, and is needed only when the row exists after all.
const INSERT_NEW = `${INSERT} ON CONFLICT (path) DO NOTHING`;
const UPSERT = `${INSERT}
ON CONFLICT (path) DO UPDATE SET size = excluded.size, mtime_ns = excluded.mtime_ns,
  ctime_ns = excluded.ctime_ns, ino = excluded.ino, racy = excluded.racy,
  sha256 = excluded.sha256, version = excluded.version, title = excluded.title,
  description = excluded.description, category = excluded.category, problem = excluded.problem
RETURNING id`;
const UPDATE_CONTENT = `UPDATE files SET size = ?, mtime_ns = ?, ctime_ns = ?, ino = ?, racy = ?,
  sha256 = ?, version = ?, title = ?, description = ?, category = ?, problem = ?
  WHERE id = ? AND path = ?`;
const UPDATE_STAT = `UPDATE files SET size = ?, mtime_ns = ?, ctime_ns = ?, ino = ?, racy = ?
  WHERE path = ? RETURNING id`;
const DELETE_FILE = 'DELETE FROM files WHERE path = ? RETURNING id, item_type, item_id';
const DELETE_FTS = 'DELETE FROM fts WHERE rowid = ?';
const INSERT_FTS = `INSERT INTO fts (rowid, item_id, title, description, category, body)
  VALUES (?, ?, ?, ?, ?, ?)`;
const UPSERT_DIR = `INSERT OR REPLACE INTO dirs (path, parent, space, item_type, prefix, mtime_ns,
  ctime_ns, ino, racy) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`;
const DELETE_DIR = 'DELETE FROM dirs WHERE path = ?';
// Marked racy, not deleted: a deleted row would drop the folder from its
// parent's recorded subfolders, and an unchanged parent would never walk it.
const DOUBT_DIR = 'UPDATE dirs SET racy = 1 WHERE path = ?';
const SET_META = 'INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)';
// Which file of an id wins: the first space in precedence order (a reserved id
// has files in system space only: enumeration never indexes the others).
const MARK_ALL = `UPDATE files SET
  shadowed = EXISTS (SELECT 1 FROM files o WHERE o.item_type = files.item_type
    AND o.item_id = files.item_id AND o.space_rank < files.space_rank),
  ambiguous = (SELECT count(*) FROM files o WHERE o.item_type = files.item_type
    AND o.item_id = files.item_id AND o.space_rank = files.space_rank) > 1`;
const MARK_ONE = `${MARK_ALL} WHERE item_type = ? AND item_id = ?`;
/** Above this many touched ids, one pass over every row is cheaper than one per id. */
const MARK_ONE_LIMIT = 256;

/**
 * Write one refresh in a single BEGIN IMMEDIATE transaction, so another
 * process sees the index before or after it, never half of it; then bring
 * this process's mirror along. When another connection committed since the
 * mirror was read, the file rows are still written (each is a stat taken
 * before its bytes were read, so a later check re-reads it if it moved), but
 * no folder is recorded as listed: every folder touched is marked racy
 * instead, so the next walk lists it again, and the mirror is dropped.
 *
 * @throws RyeError SEARCH_INDEX_FAILED
 */
export function applyChanges(handle: CatalogDb, write: IndexWrite): void {
  const touched = new Map<string, [string, string]>();
  const written = new Map<string, IndexedStat>();
  let foreign = false;
  const run = (): void => {
    foreign = dataVersionOf(handle) !== handle.dataVersion;
    for (const path of write.removed) {
      const gone = statement(handle, DELETE_FILE).get(path) as
        { id: number; item_type: string; item_id: string } | undefined;
      if (gone === undefined) continue;
      statement(handle, DELETE_FTS).run(gone.id);
      touched.set(path, [gone.item_type, gone.item_id]);
    }
    for (const change of write.changes) {
      const row = writeChange(handle, change, foreign);
      if (row === undefined) continue;
      written.set(change.file.path, row);
      if (change.kind === 'content' && change.row === undefined)
        touched.set(change.file.path, [change.file.itemType, change.file.itemId]);
    }
    if (foreign) {
      const doubt = new Set(write.listed.map((d) => d.path));
      for (const path of write.removed) doubt.add(parentOf(path));
      for (const change of write.changes) doubt.add(parentOf(change.file.path));
      for (const path of doubt) statement(handle, DOUBT_DIR).run(path);
    } else {
      for (const path of write.goneDirs) statement(handle, DELETE_DIR).run(path);
      for (const d of write.listed) {
        statement(handle, UPSERT_DIR).run(
          d.path,
          d.parent,
          d.space,
          d.itemType,
          d.prefix,
          String(d.mtimeNs),
          String(d.ctimeNs),
          String(d.ino),
          d.racy ? 1 : 0,
        );
      }
      if (write.sweptNs !== null) statement(handle, SET_META).run(SWEPT_KEY, String(write.sweptNs));
    }
    if (touched.size > MARK_ONE_LIMIT) statement(handle, MARK_ALL).run();
    else {
      const keys = new Map([...touched.values()].map((k) => [k.join('\0'), k] as const));
      for (const [type, id] of keys.values()) statement(handle, MARK_ONE).run(type, id);
    }
  };
  withIndex(handle, () => handle.db.transaction(run).immediate());
  if (foreign) {
    handle.rows = null;
    handle.dirs = null;
    handle.dataVersion = -1;
    return;
  }
  const { rows, dirs } = handle;
  if (rows !== null) {
    for (const path of write.removed) rows.delete(path);
    for (const [path, row] of written) rows.set(path, row);
  }
  if (dirs !== null) {
    for (const path of write.goneDirs) dirs.delete(path);
    for (const d of write.listed) dirs.set(d.path, d);
  }
  if (write.sweptNs !== null) handle.sweptNs = write.sweptNs;
}

/** One file's row (and its FTS row when the content changed); undefined when its row is gone. */
function writeChange(handle: CatalogDb, change: Change, foreign: boolean): IndexedStat | undefined {
  const { file } = change;
  const mtime = String(file.mtimeNs);
  const ctime = String(file.ctimeNs);
  const ino = String(file.ino);
  const racy = change.racy ? 1 : 0;
  let id: number;
  let sha256: string | null;
  if (change.kind === 'stat') {
    const hit = statement(handle, UPDATE_STAT).get(
      file.size,
      mtime,
      ctime,
      ino,
      racy,
      file.path,
    ) as { id: number } | undefined;
    if (hit === undefined) return undefined;
    id = hit.id;
    sha256 = change.sha256;
  } else {
    const { record } = change;
    const { summary } = record;
    const values = [
      file.path,
      file.itemType,
      file.itemId,
      file.space,
      SPACE_NAMES.indexOf(file.space),
      file.extension,
      file.size,
      mtime,
      ctime,
      ino,
      racy,
      record.sha256,
      summary.version,
      summary.title,
      summary.description,
      summary.category,
      record.problem,
    ];
    sha256 = record.sha256;
    id = writeContentRow(handle, values, change.row, foreign);
    statement(handle, INSERT_FTS).run(
      id,
      file.itemId,
      summary.title ?? '',
      [summary.description ?? '', summary.keywords].join(' '),
      summary.category ?? '',
      record.body,
    );
  }
  return {
    id,
    size: file.size,
    mtimeNs: file.mtimeNs,
    ctimeNs: file.ctimeNs,
    ino: file.ino,
    racy: change.racy,
    sha256,
  };
}

/**
 * The `files` row of a content change, and its id; the FTS row is the
 * caller's. The row as planned (none for a new path) is the row now unless
 * another connection wrote, or another search of this process got there
 * first: each fast path checks it changed exactly one row, else the UPSERT
 * decides (and the old FTS row, if any, is dropped).
 */
function writeContentRow(
  handle: CatalogDb,
  values: readonly unknown[],
  row: IndexedStat | undefined,
  foreign: boolean,
): number {
  if (!foreign && row === undefined) {
    const inserted = statement(handle, INSERT_NEW).run(...values);
    // A path new to this index has no FTS row to replace.
    if (inserted.changes === 1) return Number(inserted.lastInsertRowid);
  }
  const updated =
    !foreign &&
    row !== undefined &&
    statement(handle, UPDATE_CONTENT).run(...values.slice(6), row.id, values[0]).changes === 1;
  const id = updated
    ? (row as IndexedStat).id
    : (statement(handle, UPSERT).get(...values) as { id: number }).id;
  statement(handle, DELETE_FTS).run(id);
  return id;
}
