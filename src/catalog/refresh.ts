import { applyChanges, type Change } from './apply-changes.js';
import type { ItemFile } from './enumerate.js';
import { indexRecordOf, readItemBytes } from './extract.js';
import type { CatalogDb, IndexedStat } from './index-db.js';
import { currentRows } from './mirror.js';
import { isRacy, nowNs } from './racy.js';

export { RACY_WINDOW_NS } from './racy.js';

/** What one refresh did. */
export interface RefreshStats {
  /** Item files stat'ed (every file when `full`). */
  readonly files: number;
  /** Files read and (re)indexed because they were new or their content changed. */
  readonly indexed: number;
  /** Files read because their stat changed (or was racy) whose bytes were the same. */
  readonly rehashed: number;
  readonly removed: number;
  /** Folders listed (the others were unchanged since they were last listed). */
  readonly dirs?: number;
  /** True when every folder was listed and every file stat'ed. */
  readonly full?: boolean;
}

/** The writes that bring `files` (each just `lstat`ed) in line with their rows, and how many were re-hashed. */
export async function planChanges(
  rowOf: (path: string) => IndexedStat | undefined,
  files: readonly ItemFile[],
  now: bigint,
): Promise<{ changes: Change[]; rehashed: number }> {
  const changes: Change[] = [];
  let rehashed = 0;
  for (const file of files) {
    const row = rowOf(file.path);
    if (row !== undefined && !row.racy && sameStat(row, file)) continue;
    const read = readItemBytes(file.path);
    const racy = isRacy(file.mtimeNs, file.ctimeNs, now);
    if (row !== undefined && read.sha256 !== null && read.sha256 === row.sha256) {
      rehashed += 1;
      // Nothing to write when a racy row is still racy and nothing moved.
      if (!(row.racy && racy && sameStat(row, file)))
        changes.push({ kind: 'stat', file, racy, sha256: read.sha256 });
      continue;
    }
    const record = await indexRecordOf(file, read);
    changes.push({ kind: 'content', file, racy, row, record });
  }
  return { changes, rehashed };
}

/**
 * Bring the index in line with `files`, the complete list of item files on
 * disk. Every file is compared by (size, mtime ns, ctime ns, inode) with its
 * row; a new file, a changed stat or a racy row is read and hashed, and
 * re-indexed when its SHA-256 differs; rows of files not in the list are
 * removed. All changes land in one transaction (BEGIN IMMEDIATE).
 *
 * @throws RyeError SEARCH_INDEX_FAILED
 */
export async function refreshIndex(
  handle: CatalogDb,
  files: readonly ItemFile[],
  now: bigint = nowNs(),
): Promise<RefreshStats> {
  const rows = currentRows(handle);
  const { changes, rehashed } = await planChanges((p) => rows.get(p), files, now);
  const seen = new Set(files.map((f) => f.path));
  const removed = [...rows.keys()].filter((path) => !seen.has(path));
  if (changes.length > 0 || removed.length > 0)
    applyChanges(handle, { changes, removed, listed: [], goneDirs: [], sweptNs: null });
  return {
    files: files.length,
    indexed: changes.filter((c) => c.kind === 'content').length,
    rehashed,
    removed: removed.length,
  };
}

/** True when the file's stat is the one its row was indexed with. Pure. */
export function sameStat(row: IndexedStat, file: ItemFile): boolean {
  return (
    row.size === file.size &&
    row.mtimeNs === file.mtimeNs &&
    row.ctimeNs === file.ctimeNs &&
    row.ino === file.ino
  );
}
