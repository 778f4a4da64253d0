import { RyeError } from '../errors/index.js';
import { compileIdGlob, isGlob } from './glob.js';
import type { ItemType } from './item-type.js';
import { spacesForId } from './reserved-ids.js';
import { listItemFiles, resolveItem, type ResolvedItem } from './resolve.js';
import { SPACE_NAMES, type SpaceName, type Spaces } from './spaces.js';

/**
 * The item files an id or glob names, searching `only` spaces in precedence
 * order. One id resolves to one file (ITEM_AMBIGUOUS otherwise). A glob yields
 * every matching file; an id found in a higher-precedence space shadows the
 * same id below it. A glob that matches nothing is ITEM_NOT_FOUND. Files under
 * a reserved id (`rye/…`) outside system space are never selected
 * ({@link ignoredReservedFiles} lists them).
 *
 * @throws RyeError ITEM_ID_INVALID, ITEM_AMBIGUOUS, ITEM_NOT_FOUND, ITEM_ID_RESERVED
 */
export async function selectItems(
  spaces: Spaces,
  itemType: ItemType,
  idOrGlob: string,
  only: readonly SpaceName[] = SPACE_NAMES,
): Promise<ResolvedItem[]> {
  if (!isGlob(idOrGlob)) return [await resolveItem(spaces, itemType, idOrGlob, only)];
  const matches = compileIdGlob(idOrGlob);
  const seen = new Set<string>();
  const out: ResolvedItem[] = [];
  for (const space of SPACE_NAMES.filter((s) => only.includes(s))) {
    const inSpace = (await listItemFiles(spaces, space, itemType)).filter(
      (f) => matches(f.itemId) && spacesForId(f.itemId, [space]).length > 0,
    );
    for (const file of inSpace) if (!seen.has(file.itemId)) out.push(file);
    for (const file of inSpace) seen.add(file.itemId);
  }
  if (out.length === 0) {
    throw new RyeError(
      'ITEM_NOT_FOUND',
      `Cannot find any ${itemType} matching "${idOrGlob}" in ${only.join(', ')} space`,
      {
        itemType,
        pattern: idOrGlob,
        spaces: only,
      },
    );
  }
  return out;
}

/**
 * Project and user files an id or glob names under a reserved id (`rye/…`):
 * they are never used, and commands that list items say so. User-space files
 * under a user-overridable prefix (provider descriptors) are used, so not listed.
 */
export async function ignoredReservedFiles(
  spaces: Spaces,
  itemType: ItemType,
  idOrGlob: string,
): Promise<ResolvedItem[]> {
  const matches = isGlob(idOrGlob) ? compileIdGlob(idOrGlob) : (id: string) => id === idOrGlob;
  const out: ResolvedItem[] = [];
  for (const space of ['project', 'user'] as const) {
    for (const file of await listItemFiles(spaces, space, itemType))
      if (spacesForId(file.itemId, [space]).length === 0 && matches(file.itemId)) out.push(file);
  }
  return out;
}
