import { lstatSync, readdirSync, type BigIntStats, type Dirent } from 'node:fs';
import { sep } from 'node:path';
import {
  ITEM_EXTENSIONS,
  ITEM_TYPES,
  LIST_EXCLUDED_DIRS,
  SPACE_NAMES,
  isReservedId,
  problemWith,
  typeRoot,
  type ItemType,
  type ResolvedItem,
  type SpaceName,
  type Spaces,
} from '../items/index.js';

/** One item file and the stat fields its index row is kept fresh by. */
export interface ItemFile extends ResolvedItem {
  readonly size: number;
  /** Nanoseconds since the epoch (`bigint: true` stat). */
  readonly mtimeNs: bigint;
  /** Changed by every write and by `touch -d`; a user cannot set it. */
  readonly ctimeNs: bigint;
  readonly ino: bigint;
}

/** One folder's item files (stat'ed) and the subfolders that may hold more. */
export interface ItemDirListing {
  readonly files: ItemFile[];
  readonly subdirs: readonly { readonly path: string; readonly prefix: string }[];
}

/**
 * Every item file of every type in the three spaces, with its stat, walked
 * synchronously (one `readdir` per folder, one `lstat` per file: for
 * thousands of small files each async call costs more than the syscall).
 *
 * The rules are resolution's (`listItemFiles`, `resolveItem`): the type's
 * extensions only; dependency, cache and dot folders are not walked; symbolic
 * links (to files or folders) are never followed, so a link pointing outside
 * a space is not an item; ids under `rye/` count in system space only; a file
 * whose name is not a valid id is not an item. Every space's files are
 * returned, shadowed ones included; the index marks which one wins.
 */
export function enumerateItemFiles(spaces: Spaces): ItemFile[] {
  const out: ItemFile[] = [];
  for (const space of SPACE_NAMES) {
    for (const itemType of ITEM_TYPES) {
      const pending = [{ path: typeRoot(spaces, space, itemType), prefix: '' }];
      for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
        const listing = readItemDir(next.path, next.prefix, space, itemType);
        for (const file of listing.files) out.push(file);
        for (const sub of listing.subdirs) pending.push(sub);
      }
    }
  }
  return out;
}

/**
 * One folder of a type root, by {@link enumerateItemFiles}'s rules: its item
 * files, each `lstat`ed, and its subfolders to walk (`prefix` is the id
 * prefix of the folder, `''` at the type root). A folder whose name cannot be
 * part of an id, or that is missing or unreadable, lists nothing.
 */
export function readItemDir(
  dir: string,
  prefix: string,
  space: SpaceName,
  itemType: ItemType,
): ItemDirListing {
  const files: ItemFile[] = [];
  const subdirs: { path: string; prefix: string }[] = [];
  // A folder whose name is not an id segment holds no valid id: skip it whole.
  if (prefix !== '' && !isValidId(`${prefix}x`)) return { files, subdirs };
  const extensions = ITEM_EXTENSIONS[itemType];
  for (const entry of listDir(dir)) {
    const path = `${dir}${sep}${entry.name}`;
    if (entry.isDirectory()) {
      if (!LIST_EXCLUDED_DIRS.has(entry.name) && !entry.name.startsWith('.'))
        subdirs.push({ path, prefix: `${prefix}${entry.name}/` });
      continue;
    }
    if (!entry.isFile()) continue;
    const dot = entry.name.lastIndexOf('.');
    const extension = dot > 0 ? entry.name.slice(dot) : '';
    if (!extensions.includes(extension)) continue;
    const itemId = prefix + entry.name.slice(0, dot);
    if (space !== 'system' && isReservedId(itemId)) continue;
    if (!isValidId(itemId)) continue;
    const info = statOf(path);
    // Gone since the listing, or replaced by something that is not a file.
    if (info === undefined || !info.isFile()) continue;
    files.push({
      itemType,
      itemId,
      space,
      path,
      extension,
      size: Number(info.size),
      mtimeNs: info.mtimeNs,
      ctimeNs: info.ctimeNs,
      ino: info.ino,
    });
  }
  return { files, subdirs };
}

/** Ids already found valid: the same thousands of ids are checked on every search. */
const validIds = new Set<string>();

function isValidId(itemId: string): boolean {
  if (validIds.has(itemId)) return true;
  if (problemWith(itemId) !== undefined) return false;
  // Bounded: a process that walks ever-new trees starts over rather than grow without end.
  if (validIds.size >= 100_000) validIds.clear();
  validIds.add(itemId);
  return true;
}

function statOf(path: string): BigIntStats | undefined {
  try {
    return lstatSync(path, { bigint: true, throwIfNoEntry: false });
  } catch {
    // Unreadable metadata (EACCES on a folder swapped mid-walk): nothing to index.
    return undefined;
  }
}

function listDir(dir: string): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch {
    // A missing type folder (or one that vanished mid-walk) holds no items.
    return [];
  }
}
