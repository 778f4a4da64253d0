import { readdirSync, type Dirent } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { basename, dirname, extname, join, relative, sep } from 'node:path';
import { RyeError } from '../errors/index.js';
import { parseItemId } from './item-id.js';
import { ITEM_EXTENSIONS, ITEM_FOLDERS, type ItemType } from './item-type.js';
import { RESERVED_PREFIX, spacesForId } from './reserved-ids.js';
import { SPACE_NAMES, aiDir, type SpaceName, type Spaces } from './spaces.js';

/** An item id resolved to one file in one space. */
export interface ResolvedItem {
  readonly itemType: ItemType;
  readonly itemId: string;
  readonly space: SpaceName;
  readonly path: string;
  readonly extension: string;
}

/** Folders never walked when listing items (dependencies, caches, VCS). */
export const LIST_EXCLUDED_DIRS: ReadonlySet<string> = new Set([
  'node_modules',
  '__pycache__',
  '.git',
  '.venv',
  'dist',
]);

/** `<base>/.ai/<type folder>` of a space. */
export function typeRoot(spaces: Spaces, space: SpaceName, itemType: ItemType): string {
  return join(aiDir(spaces, space), ITEM_FOLDERS[itemType]);
}

/**
 * Resolve an item id project → user → system (or within `only`), probing the
 * type's extensions in their fixed order. Two files with the same id in one
 * space is an error, never a silent pick. Ids under `rye/` resolve from system
 * space only (reserved-ids.ts): a project or user file for one is ignored.
 *
 * @throws RyeError ITEM_ID_INVALID, ITEM_AMBIGUOUS, ITEM_NOT_FOUND,
 *   ITEM_ID_RESERVED (a reserved id with files only outside system space)
 */
export async function resolveItem(
  spaces: Spaces,
  itemType: ItemType,
  itemId: string,
  only: readonly SpaceName[] = SPACE_NAMES,
): Promise<ResolvedItem> {
  parseItemId(itemId);
  const allowed = spacesForId(itemId, only);
  for (const space of SPACE_NAMES.filter((s) => allowed.includes(s))) {
    const found = await filesForId(spaces, space, itemType, itemId);
    if (found.length > 1) {
      throw new RyeError(
        'ITEM_AMBIGUOUS',
        `Cannot resolve ${itemType} "${itemId}": ${space} space has ${found.length} files for it (${found.map((f) => f.extension).join(', ')})`,
        { itemType, itemId, space, paths: found.map((f) => f.path) },
      );
    }
    if (found[0] !== undefined) return found[0];
  }
  const ignored: string[] = [];
  for (const space of only.filter((s) => !allowed.includes(s)))
    for (const f of await filesForId(spaces, space, itemType, itemId)) ignored.push(f.path);
  if (ignored.length > 0) {
    throw new RyeError(
      'ITEM_ID_RESERVED',
      `Cannot resolve ${itemType} "${itemId}": ids under ${RESERVED_PREFIX} resolve from system space only, which has no such ${itemType}; ignored ${ignored.join(', ')}`,
      { itemType, itemId, ignored },
    );
  }
  throw new RyeError(
    'ITEM_NOT_FOUND',
    `Cannot resolve ${itemType} "${itemId}": no file in ${allowed.join(', ') || 'system'} space${allowed.length > 1 ? 's' : ''}${allowed.length < only.length ? ` (ids under ${RESERVED_PREFIX} resolve from system space only)` : ''}`,
    { itemType, itemId, spaces: allowed },
  );
}

async function filesForId(
  spaces: Spaces,
  space: SpaceName,
  itemType: ItemType,
  itemId: string,
): Promise<ResolvedItem[]> {
  const path = join(typeRoot(spaces, space, itemType), itemId);
  const name = basename(path);
  // One listing of the folder instead of a probe per extension: a miss costs a
  // failed syscall each, and resolution runs for every chain element.
  let entries: Dirent[];
  try {
    // Synchronous: one small listing per space and element, on every execute.
    entries = readdirSync(dirname(path), { withFileTypes: true });
  } catch {
    return [];
  }
  const files = new Set(
    entries.filter((e) => e.isFile() && e.name.startsWith(name)).map((e) => e.name),
  );
  return ITEM_EXTENSIONS[itemType]
    .filter((extension) => files.has(name + extension))
    .map((extension) => ({ itemType, itemId, space, path: path + extension, extension }));
}

/**
 * Every item file of a type in one space, sorted by id then extension order.
 * Symbolic links are not followed; excluded folders are not walked.
 */
export async function listItemFiles(
  spaces: Spaces,
  space: SpaceName,
  itemType: ItemType,
): Promise<ResolvedItem[]> {
  const root = typeRoot(spaces, space, itemType);
  const extensions = ITEM_EXTENSIONS[itemType];
  const out: ResolvedItem[] = [];
  const walk = async (dir: string): Promise<void> => {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!LIST_EXCLUDED_DIRS.has(entry.name) && !entry.name.startsWith('.')) await walk(path);
        continue;
      }
      const extension = extname(entry.name);
      if (!entry.isFile() || !extensions.includes(extension)) continue;
      const itemId = relative(root, path).slice(0, -extension.length).split(sep).join('/');
      out.push({ itemType, itemId, space, path, extension });
    }
  };
  await walk(root);
  return out.sort(
    (a, b) =>
      compare(a.itemId, b.itemId) ||
      extensions.indexOf(a.extension) - extensions.indexOf(b.extension),
  );
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
