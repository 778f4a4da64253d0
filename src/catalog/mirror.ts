import type { ItemType, SpaceName } from '../items/index.js';
import { statement, withIndex, type CatalogDb, type DirRow, type IndexedStat } from './index-db.js';

/** The `meta` key of the time a walk last stat'ed every file. */
export const SWEPT_KEY = 'swept_ns';

/** The connection's `data_version`: it moves when another connection commits. */
export function dataVersionOf(handle: CatalogDb): number {
  return handle.db.pragma('data_version', { simple: true }) as number;
}

/**
 * This process's mirror of the folder rows and the last sweep time, reloaded
 * when another connection committed since it was read (the file rows are
 * dropped then too, and reloaded only when a walk needs them).
 *
 * @throws RyeError SEARCH_INDEX_FAILED
 */
export function currentDirs(handle: CatalogDb): Map<string, DirRow> {
  return withIndex(handle, () => {
    const version = dataVersionOf(handle);
    if (handle.dirs !== null && version === handle.dataVersion) return handle.dirs;
    const dirs = new Map<string, DirRow>();
    handle.db
      .transaction(() => {
        const all = statement(
          handle,
          'SELECT path, parent, space, item_type, prefix, mtime_ns, ctime_ns, ino, racy FROM dirs',
        ).all() as StoredDir[];
        for (const d of all) {
          dirs.set(d.path, {
            path: d.path,
            parent: d.parent,
            space: d.space,
            itemType: d.item_type,
            prefix: d.prefix,
            mtimeNs: BigInt(d.mtime_ns),
            ctimeNs: BigInt(d.ctime_ns),
            ino: BigInt(d.ino),
            racy: d.racy === 1,
          });
        }
        const swept = statement(handle, 'SELECT value FROM meta WHERE key = ?').get(SWEPT_KEY) as
          { value: string } | undefined;
        handle.sweptNs = swept === undefined ? 0n : BigInt(swept.value);
      })
      .deferred();
    handle.dirs = dirs;
    handle.rows = null;
    handle.dataVersion = version;
    return dirs;
  });
}

/**
 * The file stat rows, path → row, loaded once per `data_version` (when
 * another connection committed since, the folder rows are reloaded too).
 *
 * @throws RyeError SEARCH_INDEX_FAILED
 */
export function currentRows(handle: CatalogDb): Map<string, IndexedStat> {
  currentDirs(handle);
  return withIndex(handle, () => {
    if (handle.rows !== null) return handle.rows;
    const rows = new Map<string, IndexedStat>();
    const all = statement(
      handle,
      'SELECT id, path, size, mtime_ns, ctime_ns, ino, racy, sha256 FROM files',
    ).all() as StoredStat[];
    for (const r of all) rows.set(r.path, indexedStatOf(r));
    handle.rows = rows;
    return rows;
  });
}

/** A `files` row's stat columns as read from SQLite. */
export interface StoredStat {
  readonly id: number;
  readonly path: string;
  readonly size: number;
  readonly mtime_ns: string;
  readonly ctime_ns: string;
  readonly ino: string;
  readonly racy: number;
  readonly sha256: string | null;
}

/** The stat columns as compared with a file's `lstat`. Pure. */
export function indexedStatOf(r: StoredStat): IndexedStat {
  return {
    id: r.id,
    size: r.size,
    mtimeNs: BigInt(r.mtime_ns),
    ctimeNs: BigInt(r.ctime_ns),
    ino: BigInt(r.ino),
    racy: r.racy === 1,
    sha256: r.sha256,
  };
}

interface StoredDir {
  readonly path: string;
  readonly parent: string | null;
  readonly space: SpaceName;
  readonly item_type: ItemType;
  readonly prefix: string;
  readonly mtime_ns: string;
  readonly ctime_ns: string;
  readonly ino: string;
  readonly racy: number;
}
