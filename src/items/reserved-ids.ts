/**
 * Ids under `rye/` belong to the standard library (docs/trust.md, "`rye/` is
 * reserved"): they resolve from system space only, so a project or user file
 * (`.ai/tools/rye/core/runtimes/python_script_runtime.yaml`), signed or not,
 * can never shadow a standard runtime or primitive; registries refuse to
 * publish them and pulls refuse to write them.
 *
 * This file is the one place the rule lives. Key scopes (a key the user scoped
 * to `rye/…` explicitly) extend it here and nowhere else.
 */
import { RyeError } from '../errors/index.js';
import { ITEM_FOLDERS, ITEM_TYPES } from './item-type.js';
import type { SpaceName } from './spaces.js';

/** The reserved id prefix. */
export const RESERVED_PREFIX = 'rye/';

/**
 * True for an id under `rye/`. Case-insensitive: on a case-insensitive file
 * system `RYE/core/…` is the same folder.
 */
export function isReservedId(itemId: string): boolean {
  return itemId.slice(0, RESERVED_PREFIX.length).toLowerCase() === RESERVED_PREFIX;
}

/**
 * Reserved ids the user may add or replace in user space, never in project
 * space: provider descriptors (THREADS.md §7), so a user can point a provider
 * at a local server while a pulled project can never redirect a key.
 */
export const USER_OVERRIDABLE_PREFIXES: readonly string[] = ['rye/agent/providers/'];

/**
 * The spaces an id may resolve from, among `only`: system alone for a
 * reserved id, user and system for a user-overridable one.
 */
export function spacesForId(itemId: string, only: readonly SpaceName[]): SpaceName[] {
  if (!isReservedId(itemId)) return [...only];
  const lower = itemId.toLowerCase();
  const userToo = USER_OVERRIDABLE_PREFIXES.some((prefix) => lower.startsWith(prefix));
  return only.filter((s) => s === 'system' || (userToo && s === 'user'));
}

/**
 * The item id a project-relative path names when it is an item file under a
 * reserved id (`.ai/tools/rye/x.py` → `rye/x.py`), else undefined. Used for
 * bundle manifests, whose files land in the project as they are listed.
 */
export function reservedItemPath(rel: string): string | undefined {
  for (const type of ITEM_TYPES) {
    const folder = `.ai/${ITEM_FOLDERS[type]}/`;
    if (rel.toLowerCase().startsWith(folder) && isReservedId(rel.slice(folder.length)))
      return rel.slice(folder.length);
  }
  return undefined;
}

/**
 * Refuse a reserved id where only the standard library may use it.
 *
 * @throws RyeError ITEM_ID_RESERVED
 */
export function assertNotReserved(itemId: string, action: string): void {
  if (!isReservedId(itemId)) return;
  throw new RyeError(
    'ITEM_ID_RESERVED',
    `Cannot ${action} "${itemId.slice(0, 200)}": ids under ${RESERVED_PREFIX} belong to the standard library in system space`,
    { itemId: itemId.slice(0, 200) },
  );
}
