import { SPACE_NAMES } from '../../items/index.js';
import type { ItemFile } from './enumerate.js';
import { indexRecordOf, readItemBytes, type IndexRecord } from './extract.js';
import { statement, withIndex, type CatalogDb, type IndexedStat } from './index-db.js';

/**
 * A file whose newest timestamp is closer to the indexing time than this may
 * still change without its size, mtime or ctime moving (timestamps tick
 * coarser than writes: a jiffy on Linux, 2 s on FAT), so its row is marked
 * racy and re-hashed on every search until the window has passed (git's
 * "racy clean" rule).
 */
export const RACY_WINDOW_NS = 2_000_000_000n;

/** What one refresh did. */
export interface RefreshStats {
  /** Item files found on disk. */
  readonly files: number;
  /** Files read and (re)indexed because they were new or their content changed. */
  readonly indexed: number;
  /** Files read because their stat changed (or was racy) whose bytes were the same. */
  readonly rehashed: number;
  readonly removed: number;
}

type Change =
  | {
      readonly kind: 'content';
      readonly file: ItemFile;
      readonly racy: boolean;
      readonly record: IndexRecord;
    }
  | {
      readonly kind: 'stat';
      readonly file: ItemFile;
      readonly racy: boolean;
      readonly sha256: string;
    };

/**
 * Bring the index in line with the files on disk. Every file is compared by
 * (size, mtime ns, ctime ns, inode) with its row; a new file, a changed stat
 * or a racy row is read and hashed, and re-indexed when its SHA-256 differs;
 * rows of files that are gone are removed. All changes land in one
 * transaction (BEGIN IMMEDIATE), so a concurrent search in another process
 * sees the index before or after, never half of it.
 *
 * @throws RyeError SEARCH_INDEX_FAILED
 */
export async function refreshIndex(
  handle: CatalogDb,
  files: readonly ItemFile[],
  nowNs: bigint = BigInt(Date.now()) * 1_000_000n,
): Promise<RefreshStats> {
  const rows = currentRows(handle);
  const changes: Change[] = [];
  let rehashed = 0;
  let known = 0;
  for (const file of files) {
    const row = rows.get(file.path);
    if (row !== undefined) known += 1;
    if (row !== undefined && !row.racy && sameStat(row, file)) continue;
    const read = readItemBytes(file.path);
    const racy = isRacy(file, nowNs);
    if (row !== undefined && read.sha256 !== null && read.sha256 === row.sha256) {
      rehashed += 1;
      // Nothing to write when a racy row is still racy and nothing moved.
      if (!(row.racy && racy && sameStat(row, file)))
        changes.push({ kind: 'stat', file, racy, sha256: read.sha256 });
      continue;
    }
    changes.push({ kind: 'content', file, racy, record: await indexRecordOf(file, read) });
  }
  // Every row matched a file (the usual case): nothing was removed, no set to build.
  const removed = known === rows.size ? [] : removedPaths(rows, files);
  if (changes.length > 0 || removed.length > 0) apply(handle, rows, changes, removed);
  return {
    files: files.length,
    indexed: changes.filter((c) => c.kind === 'content').length,
    rehashed,
    removed: removed.length,
  };
}

function removedPaths(rows: Map<string, IndexedStat>, files: readonly ItemFile[]): string[] {
  const seen = new Set(files.map((f) => f.path));
  return [...rows.keys()].filter((path) => !seen.has(path));
}

/** This process's mirror of the stat rows, reloaded when another connection committed. */
function currentRows(handle: CatalogDb): Map<string, IndexedStat> {
  return withIndex(handle, () => {
    const version = handle.db.pragma('data_version', { simple: true }) as number;
    if (handle.rows !== null && version === handle.dataVersion) return handle.rows;
    const rows = new Map<string, IndexedStat>();
    const all = statement(
      handle,
      'SELECT id, path, size, mtime_ns, ctime_ns, ino, racy, sha256 FROM files',
    ).all() as StatRow[];
    for (const r of all) {
      rows.set(r.path, {
        id: r.id,
        size: r.size,
        mtimeNs: BigInt(r.mtime_ns),
        ctimeNs: BigInt(r.ctime_ns),
        ino: BigInt(r.ino),
        racy: r.racy === 1,
        sha256: r.sha256,
      });
    }
    handle.rows = rows;
    handle.dataVersion = version;
    return rows;
  });
}

interface StatRow {
  readonly id: number;
  readonly path: string;
  readonly size: number;
  readonly mtime_ns: string;
  readonly ctime_ns: string;
  readonly ino: string;
  readonly racy: number;
  readonly sha256: string | null;
}

function sameStat(row: IndexedStat, file: ItemFile): boolean {
  return (
    row.size === file.size &&
    row.mtimeNs === file.mtimeNs &&
    row.ctimeNs === file.ctimeNs &&
    row.ino === file.ino
  );
}

function isRacy(file: ItemFile, nowNs: bigint): boolean {
  const newest = file.mtimeNs > file.ctimeNs ? file.mtimeNs : file.ctimeNs;
  return nowNs - newest < RACY_WINDOW_NS;
}

const UPSERT = `
INSERT INTO files (path, item_type, item_id, space, space_rank, extension, size, mtime_ns,
  ctime_ns, ino, racy, sha256, version, title, description, category, problem)
VALUES (@path, @item_type, @item_id, @space, @space_rank, @extension, @size, @mtime_ns,
  @ctime_ns, @ino, @racy, @sha256, @version, @title, @description, @category, @problem)
ON CONFLICT (path) DO UPDATE SET size = excluded.size, mtime_ns = excluded.mtime_ns,
  ctime_ns = excluded.ctime_ns, ino = excluded.ino, racy = excluded.racy,
  sha256 = excluded.sha256, version = excluded.version, title = excluded.title,
  description = excluded.description, category = excluded.category, problem = excluded.problem
RETURNING id`;
const UPDATE_STAT = `UPDATE files SET size = ?, mtime_ns = ?, ctime_ns = ?, ino = ?, racy = ?
  WHERE path = ? RETURNING id`;
const DELETE_FILE = 'DELETE FROM files WHERE path = ? RETURNING id, item_type, item_id';
const DELETE_FTS = 'DELETE FROM fts WHERE rowid = ?';
const INSERT_FTS = `INSERT INTO fts (rowid, item_id, title, description, category, body)
  VALUES (?, ?, ?, ?, ?, ?)`;
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

function apply(
  handle: CatalogDb,
  rows: Map<string, IndexedStat>,
  changes: readonly Change[],
  removed: readonly string[],
): void {
  const touched = new Map<string, [string, string]>();
  const written = new Map<string, IndexedStat>();
  let foreign = false;
  const run = (): void => {
    // Another process committed since `rows` was read: keep its work, reload next time.
    foreign = (handle.db.pragma('data_version', { simple: true }) as number) !== handle.dataVersion;
    for (const path of removed) {
      const gone = statement(handle, DELETE_FILE).get(path) as
        { id: number; item_type: string; item_id: string } | undefined;
      if (gone === undefined) continue;
      statement(handle, DELETE_FTS).run(gone.id);
      touched.set(path, [gone.item_type, gone.item_id]);
    }
    for (const change of changes) {
      const { file } = change;
      const stat = [
        file.size,
        String(file.mtimeNs),
        String(file.ctimeNs),
        String(file.ino),
      ] as const;
      let id: number;
      let sha256: string | null;
      if (change.kind === 'stat') {
        const hit = statement(handle, UPDATE_STAT).get(...stat, change.racy ? 1 : 0, file.path) as
          { id: number } | undefined;
        if (hit === undefined) continue;
        id = hit.id;
        sha256 = change.sha256;
      } else {
        const { record } = change;
        const { summary } = record;
        id = (
          statement(handle, UPSERT).get({
            path: file.path,
            item_type: file.itemType,
            item_id: file.itemId,
            space: file.space,
            space_rank: SPACE_NAMES.indexOf(file.space),
            extension: file.extension,
            size: stat[0],
            mtime_ns: stat[1],
            ctime_ns: stat[2],
            ino: stat[3],
            racy: change.racy ? 1 : 0,
            sha256: record.sha256,
            version: summary.version,
            title: summary.title,
            description: summary.description,
            category: summary.category,
            problem: record.problem,
          }) as { id: number }
        ).id;
        sha256 = record.sha256;
        statement(handle, DELETE_FTS).run(id);
        statement(handle, INSERT_FTS).run(
          id,
          file.itemId,
          summary.title ?? '',
          [summary.description ?? '', summary.keywords].join(' '),
          summary.category ?? '',
          record.body,
        );
        if (!rows.has(file.path)) touched.set(file.path, [file.itemType, file.itemId]);
      }
      written.set(file.path, {
        id,
        size: file.size,
        mtimeNs: file.mtimeNs,
        ctimeNs: file.ctimeNs,
        ino: file.ino,
        racy: change.racy,
        sha256,
      });
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
    return;
  }
  for (const path of removed) rows.delete(path);
  for (const [path, row] of written) rows.set(path, row);
}
