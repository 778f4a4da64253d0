/**
 * Folders that other bundles of a project own (issue 11, "Bundles stay in
 * their lane"): a bundle may not place files in another bundle's app folder,
 * nor declare an app folder that holds one or lies inside one, nor (a bundle
 * `apps` over a bundle `apps/todo`) write into the item folders of a bundle
 * nested below its id. `rye bundle create` and a registry pull both refuse.
 *
 * The other manifests are parsed without verifying them: they can only cause
 * a refusal, never let anything in. One that cannot be read claims nothing.
 */
import { RyeError, isRyeError } from '../errors/index.js';
import type { Spaces } from '../items/index.js';
import { decodeText, readFileCapped } from '../platform/index.js';
import { bundleItemRoots } from './collect.js';
import { listManifestPaths } from './list.js';
import { MAX_MANIFEST_BYTES, parseManifest } from './manifest-parse.js';

/** A folder another bundle of the project owns. */
export interface FolderClaim {
  readonly bundleId: string;
  /** Project-relative folder. */
  readonly folder: string;
  /** `app`: one of its includes; `items`: an item folder of a bundle nested below. */
  readonly kind: 'app' | 'items';
}

/**
 * The folders the project's other bundles claim against bundle `bundleId`:
 * every app folder of every other project bundle, and the item folders of
 * bundles whose id lies below `bundleId`.
 *
 * @throws RyeError FILE_UNREADABLE when the bundles folder cannot be listed.
 */
export async function readFolderClaims(spaces: Spaces, bundleId: string): Promise<FolderClaim[]> {
  const claims: FolderClaim[] = [];
  const listed = await listManifestPaths(spaces);
  for (const other of listed) {
    if (other.space !== 'project' || other.bundleId === bundleId || other.idProblem !== undefined)
      continue;
    let includes: readonly string[];
    try {
      const text = decodeText(await readFileCapped(other.path, MAX_MANIFEST_BYTES), other.path);
      includes = parseManifest(text, other.path).bundle.includes;
    } catch (error) {
      // Defensive: readFileCapped, decodeText and parseManifest throw only RyeErrors.
      /* v8 ignore if */
      if (!isRyeError(error)) throw error;
      continue;
    }
    for (const folder of includes) claims.push({ bundleId: other.bundleId, folder, kind: 'app' });
    if (other.bundleId.startsWith(`${bundleId}/`)) {
      for (const folder of bundleItemRoots(other.bundleId))
        claims.push({ bundleId: other.bundleId, folder, kind: 'items' });
    }
  }
  return claims;
}

/**
 * The first claim bundle `bundleId` would break by declaring `includes` and
 * writing (or listing) `paths`, or undefined. An app folder conflicts with an
 * app claim it equals, holds or lies inside; a path conflicts with any claim
 * it lies below. Pure.
 */
export function claimConflict(
  includes: readonly string[],
  paths: Iterable<string>,
  claims: readonly FolderClaim[],
): { readonly path: string; readonly claim: FolderClaim } | undefined {
  const below = (path: string, folder: string): boolean => path.startsWith(`${folder}/`);
  for (const include of includes) {
    const claim = claims.find(
      (c) =>
        c.kind === 'app' &&
        (c.folder === include || below(include, c.folder) || below(c.folder, include)),
    );
    if (claim !== undefined) return { path: include, claim };
  }
  for (const path of paths) {
    const claim = claims.find((c) => below(path, c.folder));
    if (claim !== undefined) return { path, claim };
  }
  return undefined;
}

/**
 * BUNDLE_FOLDER_CLAIMED for `found`, as `Cannot <verb>: …`.
 */
export function folderClaimed(
  verb: string,
  found: { readonly path: string; readonly claim: FolderClaim },
): RyeError {
  const { path, claim } = found;
  const what = claim.kind === 'app' ? 'app folder' : 'item folder';
  return new RyeError(
    'BUNDLE_FOLDER_CLAIMED',
    `Cannot ${verb}: ${path.slice(0, 200)} overlaps ${claim.folder}, the ${what} of bundle ${claim.bundleId}; a bundle places files only in its own folders`,
    { path, folder: claim.folder, bundleId: claim.bundleId, kind: claim.kind },
  );
}
