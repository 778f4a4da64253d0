import { lstatSync, type BigIntStats } from 'node:fs';
import type { Spaces } from '../items/index.js';
import { applyChanges } from './apply-changes.js';
import type { ItemFile } from './enumerate.js';
import { statement, withIndex, type CatalogDb, type DirRow, type IndexedStat } from './index-db.js';
import { currentDirs, currentRows, indexedStatOf, type StoredStat } from './mirror.js';
import { nowNs } from './racy.js';
import { planChanges, sameStat, type RefreshStats } from './refresh.js';
import { parentOf, walkSpaces } from './walk.js';

/**
 * How much of the disk a search checks before it answers:
 * - `auto` (the default): every folder (adds, removes, renames), the rows it
 *   is about to serve, and every file when the index holds at most
 *   {@link FULL_CHECK_FILES} files or its last full check is older than
 *   {@link FULL_CHECK_EVERY_NS};
 * - `all`: every folder and every file (what a listing does: it serves them all);
 * - `served`: every folder and the rows served, never every file.
 */
export type Recheck = 'auto' | 'all' | 'served';

/** An index this small is checked file by file on every search (a few ms of `lstat`). */
export const FULL_CHECK_FILES = 2000;
/** A larger index is checked file by file when its last full check is older than this (30 s). */
export const FULL_CHECK_EVERY_NS = 30_000_000_000n;
/** A full check is recorded only when the last record is older than this, to spare writes. */
const RECORD_SWEEP_AFTER_NS = 1_000_000_000n;

/**
 * Bring the index in line with the spaces' folders (see `walkSpaces`): files
 * in folders that changed are stat'ed and compared with their rows, new and
 * changed ones re-read, rows of files and folders that are gone removed, all
 * in one transaction. With a full check every file is compared.
 *
 * @throws RyeError SEARCH_INDEX_FAILED
 */
export async function syncIndex(
  handle: CatalogDb,
  spaces: Spaces,
  recheck: Recheck = 'auto',
  now: bigint = nowNs(),
): Promise<RefreshStats> {
  const dirs = currentDirs(handle);
  const full =
    recheck === 'all' ||
    handle.sweptNs === 0n ||
    (recheck === 'auto' &&
      // A clock set back (now before the last check) must not postpone the next one.
      (now - handle.sweptNs >= FULL_CHECK_EVERY_NS ||
        now < handle.sweptNs ||
        fileCount(handle) <= FULL_CHECK_FILES));
  const walk = walkSpaces(spaces, dirs, full, now);
  const listed = walk.listed.filter((d) => !sameDir(dirs.get(d.path), d));
  // A racy folder is listed again even when its stat did not move: its files are compared.
  if (!full && walk.listed.length === 0 && walk.gone.length === 0) {
    return { files: 0, indexed: 0, rehashed: 0, removed: 0, dirs: 0, full };
  }
  const rows = currentRows(handle);
  const { changes, rehashed } = await planChanges((p) => rows.get(p), walk.files, now);
  const seen = new Set(walk.files.map((f) => f.path));
  const removed: string[] = [];
  let goneDirs: readonly string[] = walk.gone;
  if (full) {
    for (const path of rows.keys()) if (!seen.has(path)) removed.push(path);
    const visited = new Set(walk.listed.map((d) => d.path));
    goneDirs = [...(handle.dirs ?? dirs).keys()].filter((p) => !visited.has(p));
  } else {
    const scanned = new Set(walk.listed.map((d) => d.path));
    const gone = new Set(walk.gone);
    for (const path of rows.keys()) {
      const parent = parentOf(path);
      if (gone.has(parent) || (scanned.has(parent) && !seen.has(path))) removed.push(path);
    }
  }
  const sweptNs =
    full && (now - handle.sweptNs >= RECORD_SWEEP_AFTER_NS || now < handle.sweptNs) ? now : null;
  if (changes.length + removed.length + listed.length + goneDirs.length > 0 || sweptNs !== null)
    applyChanges(handle, { changes, removed, listed, goneDirs, sweptNs });
  return {
    files: walk.files.length,
    indexed: changes.filter((c) => c.kind === 'content').length,
    rehashed,
    removed: removed.length,
    dirs: walk.listed.length,
    full,
  };
}

const SERVED = `SELECT id, path, item_type, item_id, space, extension, size, mtime_ns, ctime_ns,
  ino, racy, sha256 FROM files WHERE id = ?`;

/**
 * Check the rows about to be served against their files (`lstat`: size,
 * mtime, ctime, inode; a racy row is re-hashed): a changed file is re-read and
 * re-indexed, a missing one (or one that is no longer a regular file) removed.
 * Returns how many rows changed content or went away: when it is not 0, the
 * query must run again.
 *
 * @throws RyeError SEARCH_INDEX_FAILED
 */
export async function refreshServed(
  handle: CatalogDb,
  ids: readonly number[],
  now: bigint = nowNs(),
): Promise<number> {
  const indexed = new Map<string, IndexedStat>();
  const files: ItemFile[] = [];
  const removed: string[] = [];
  withIndex(handle, () => {
    for (const id of ids) {
      const row = statement(handle, SERVED).get(id) as ServedRow | undefined;
      if (row === undefined) continue;
      const info = lstatOf(row.path);
      if (info === undefined || !info.isFile()) {
        removed.push(row.path);
        continue;
      }
      const file: ItemFile = {
        itemType: row.item_type,
        itemId: row.item_id,
        space: row.space,
        path: row.path,
        extension: row.extension,
        size: Number(info.size),
        mtimeNs: info.mtimeNs,
        ctimeNs: info.ctimeNs,
        ino: info.ino,
      };
      const stat = indexedStatOf(row);
      if (!stat.racy && sameStat(stat, file)) continue;
      indexed.set(row.path, stat);
      files.push(file);
    }
  });
  if (files.length === 0 && removed.length === 0) return 0;
  const { changes } = await planChanges((p) => indexed.get(p), files, now);
  if (changes.length > 0 || removed.length > 0)
    applyChanges(handle, { changes, removed, listed: [], goneDirs: [], sweptNs: null });
  return changes.filter((c) => c.kind === 'content').length + removed.length;
}

interface ServedRow extends StoredStat {
  readonly item_type: ItemFile['itemType'];
  readonly item_id: string;
  readonly space: ItemFile['space'];
  readonly extension: string;
}

/** The number of file rows, counted once per mirror. */
function fileCount(handle: CatalogDb): number {
  if (handle.rows !== null) return handle.rows.size;
  return withIndex(
    handle,
    () => (statement(handle, 'SELECT count(*) AS n FROM files').get() as { n: number }).n,
  );
}

function sameDir(before: DirRow | undefined, after: DirRow): boolean {
  return (
    before !== undefined &&
    before.racy === after.racy &&
    before.parent === after.parent &&
    before.space === after.space &&
    before.itemType === after.itemType &&
    before.prefix === after.prefix &&
    before.mtimeNs === after.mtimeNs &&
    before.ctimeNs === after.ctimeNs &&
    before.ino === after.ino
  );
}

function lstatOf(path: string): BigIntStats | undefined {
  try {
    return lstatSync(path, { bigint: true, throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}
