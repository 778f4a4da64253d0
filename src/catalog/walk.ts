import { lstatSync, statSync, type BigIntStats } from 'node:fs';
import { sep } from 'node:path';
import {
  ITEM_TYPES,
  SPACE_NAMES,
  typeRoot,
  type ItemType,
  type SpaceName,
  type Spaces,
} from '../items/index.js';
import { readItemDir, type ItemFile } from './enumerate.js';
import type { DirRow } from './index-db.js';
import { isRacy } from './racy.js';

/** What a walk of the spaces found. */
export interface Walk {
  /** The item files of every folder listed, each `lstat`ed. */
  readonly files: readonly ItemFile[];
  /** Folders listed (their files are exactly those in `files`), with their new rows. */
  readonly listed: readonly DirRow[];
  /** Known folders that are gone, or no longer walked (their files and rows go too). */
  readonly gone: readonly string[];
  /** True when every folder was listed: rows under no listed folder are gone. */
  readonly full: boolean;
}

/**
 * Walk the three spaces' type folders by {@link readItemDir}'s rules, using
 * `known` folder rows to skip work: a folder whose `stat` (mtime, ctime and
 * inode, timestamps in ns) is the one recorded, and that was not racy then,
 * has the entries it had, so its recorded subfolders are walked and its files
 * are not listed nor stat'ed. Any other folder is stat'ed, then listed (in
 * that order, so a change made during the listing moves the stat past the
 * recorded one). With `full`, every folder is listed and every file stat'ed.
 * A type root is `stat`ed (a linked root is followed, as listing it does);
 * other folders are `lstat`ed, and one that became a link is gone.
 */
export function walkSpaces(
  spaces: Spaces,
  known: ReadonlyMap<string, DirRow>,
  full: boolean,
  nowNs: bigint,
): Walk {
  const children = new Map<string, DirRow[]>();
  for (const dir of known.values()) {
    if (dir.parent === null) continue;
    const list = children.get(dir.parent);
    if (list === undefined) children.set(dir.parent, [dir]);
    else list.push(dir);
  }
  const files: ItemFile[] = [];
  const listed: DirRow[] = [];
  const gone: string[] = [];
  const drop = (path: string): void => {
    if (!known.has(path)) return;
    gone.push(path);
    for (const child of children.get(path) ?? []) drop(child.path);
  };
  const visit = (
    path: string,
    prefix: string,
    parent: string | null,
    space: SpaceName,
    itemType: ItemType,
  ): void => {
    const info = dirStat(path, parent === null);
    const before = known.get(path);
    if (info === undefined) return drop(path);
    const same =
      before !== undefined &&
      !before.racy &&
      before.space === space &&
      before.itemType === itemType &&
      before.prefix === prefix &&
      before.mtimeNs === info.mtimeNs &&
      before.ctimeNs === info.ctimeNs &&
      before.ino === info.ino;
    if (same && !full) {
      for (const child of children.get(path) ?? [])
        visit(child.path, child.prefix, path, space, itemType);
      return;
    }
    const listing = readItemDir(path, prefix, space, itemType);
    for (const file of listing.files) files.push(file);
    listed.push({
      path,
      parent,
      space,
      itemType,
      prefix,
      mtimeNs: info.mtimeNs,
      ctimeNs: info.ctimeNs,
      ino: info.ino,
      racy: isRacy(info.mtimeNs, info.ctimeNs, nowNs),
    });
    const now = new Set(listing.subdirs.map((s) => s.path));
    for (const child of children.get(path) ?? []) if (!now.has(child.path)) drop(child.path);
    for (const sub of listing.subdirs) visit(sub.path, sub.prefix, path, space, itemType);
  };
  for (const space of SPACE_NAMES)
    for (const itemType of ITEM_TYPES)
      visit(typeRoot(spaces, space, itemType), '', null, space, itemType);
  return { files, listed, gone, full };
}

/** A folder's stat, or undefined when it is missing, unreadable or not a folder. */
function dirStat(path: string, root: boolean): BigIntStats | undefined {
  try {
    const info = root
      ? statSync(path, { bigint: true, throwIfNoEntry: false })
      : lstatSync(path, { bigint: true, throwIfNoEntry: false });
    return info?.isDirectory() === true ? info : undefined;
  } catch {
    return undefined;
  }
}

/** The folder a walked path was listed in (paths are built as `<folder><sep><name>`). Pure. */
export function parentOf(path: string): string {
  return path.slice(0, path.lastIndexOf(sep));
}
