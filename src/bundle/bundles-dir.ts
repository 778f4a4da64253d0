import { realpathSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ITEM_FOLDERS, SPACE_NAMES, aiDir, type SpaceName, type Spaces } from '../items/index.js';
import { relativeInside } from '../platform/index.js';

/** `<space>/.ai/bundles`, where a space's bundle manifests lie. */
export function bundlesDir(spaces: Spaces, space: SpaceName): string {
  return join(aiDir(spaces, space), 'bundles');
}

const TOOLS_PREFIX = `.ai/${ITEM_FOLDERS.tool}/`;

/**
 * False only when no bundle manifest can cover the file at `path` (absolute,
 * or relative to the project), so the executor loads neither the bundle code
 * nor its YAML parser: for each space, either it has no bundles folder, or
 * its real base folder does not hold the file, or the file is under its
 * `.ai/tools/` and no `.ai/bundles/<id>/manifest.yaml` exists for an `<id>`
 * whose tool folder holds the file: the only bundles a verified manifest of
 * which may list it (the lane rule; `findBundlesFor`'s `skipUnrelated`).
 * True whenever in doubt (an error other than "no such entry", a bundles
 * path that is not a folder, a file elsewhere under the space), so the
 * caller takes the full path and its refusals. Synchronous: a few stats,
 * cheaper than a dynamic import.
 */
export function mayHaveBundlesFor(spaces: Spaces, path: string): boolean {
  let target: string | undefined;
  return SPACE_NAMES.some((space) => {
    try {
      const dir = bundlesDir(spaces, space);
      const info = statSync(dir, { throwIfNoEntry: false });
      if (info === undefined) return false;
      if (!info.isDirectory()) return true;
      target ??= realpathSync.native(resolve(spaces.project, path));
      const rel = relativeInside(realpathSync.native(spaces[space]), target);
      if (rel === undefined || rel === '') return false;
      if (!rel.startsWith(TOOLS_PREFIX)) return true;
      const folders = rel.slice(TOOLS_PREFIX.length).split('/').slice(0, -1);
      // statSync throws on any error but "no such entry": then in doubt.
      return folders.some(
        (_, i) =>
          statSync(join(dir, ...folders.slice(0, i + 1), 'manifest.yaml'), {
            throwIfNoEntry: false,
          }) !== undefined,
      );
    } catch {
      return true;
    }
  });
}
