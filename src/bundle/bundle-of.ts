import { realpath } from 'node:fs/promises';
import { resolve } from 'node:path';
import { isRyeError, type ErrorCode } from '../errors/index.js';
import type { TrustSet } from '../integrity/index.js';
import { SPACE_NAMES, type SpaceName, type Spaces } from '../items/index.js';
import { relativeInside } from '../platform/index.js';
import { bundleItemRoots } from './collect.js';
import { listManifestPaths, type ManifestLocation } from './list.js';
import {
  VerifiedManifestCache,
  verifiedManifest,
  type VerifiedManifest,
} from './manifest-cache.js';
import type { ManifestEntry } from './types.js';

/** A verified bundle that lists a file or declares a folder holding it. */
export interface BundleCoverage {
  readonly verified: VerifiedManifest;
  /** The file relative to the manifest's base folder, `/`-separated (the manifest's key form). */
  readonly relativePath: string;
  /** The manifest's entry for the file, when it lists it. */
  readonly entry: ManifestEntry | undefined;
  /** The file sits under one of the bundle's declared `includes` folders. */
  readonly included: boolean;
}

/** A manifest of the file's space that could not be used (its contents are unknown). */
export interface RefusedManifest {
  readonly bundleId: string;
  readonly space: SpaceName;
  readonly path: string;
  readonly code: ErrorCode;
  readonly message: string;
}

export interface BundleLookup {
  /** Covering bundles, project space first, then in listing order. */
  readonly covering: readonly BundleCoverage[];
  /** Manifests that failed verification or parsing; never consulted. */
  readonly refused: readonly RefusedManifest[];
}

/**
 * Which bundles cover a file: among the manifests of every space whose base
 * folder holds the file (`<base>/.ai/bundles/<id>/manifest.yaml`, listed once
 * per call), those that verify under `trust` and either list the file or
 * declare an `includes` folder containing it. A manifest is parsed only after
 * its signature verified; one that fails is reported in `refused`, not thrown,
 * so a broken bundle never hides another one. `path` is absolute or
 * project-relative; it is compared through real paths.
 *
 * With `skipUnrelated`, the manifests that cannot cover the file whatever
 * they say are not read (nor reported in `refused`): for a file under `.ai/`,
 * those of every bundle but the ones whose own item folders hold it. A
 * verified manifest lists only paths below its bundle's folders (the lane
 * rule, `manifestScopeProblem`), and none of them is an app folder inside
 * `.ai/`; a manifest that does not verify covers nothing. The executor asks
 * this for its tool, so a project's large bundle costs a tool outside it
 * nothing.
 *
 * @throws RyeError only for a failure to list the bundles (FILE_UNREADABLE).
 */
export async function findBundlesFor(
  spaces: Spaces,
  path: string,
  options: {
    readonly trust: TrustSet;
    readonly cache?: VerifiedManifestCache;
    readonly skipUnrelated?: boolean;
  },
): Promise<BundleLookup> {
  const cache = options.cache ?? new VerifiedManifestCache();
  const target = await realOrResolved(resolve(spaces.project, path));
  // The file relative to each space whose base folder holds it.
  const holding = new Map<SpaceName, string>();
  for (const space of SPACE_NAMES) {
    const base = await realOrResolved(spaces[space]);
    const rel = relativeInside(base, target);
    if (rel) holding.set(space, rel); // strictly inside: not '' nor undefined
  }
  if (holding.size === 0) return { covering: [], refused: [] };

  const covering: BundleCoverage[] = [];
  const refused: RefusedManifest[] = [];
  // Paths only: each manifest is read once, by verifiedManifest (listBundles would parse it too).
  const listed = (await listManifestPaths(spaces)).filter((b) => holding.has(b.space));
  for (const space of SPACE_NAMES) {
    for (const b of listed.filter((l) => l.space === space)) {
      // `listed` holds only the spaces in `holding`.
      const held = holding.get(space) as string;
      if (options.skipUnrelated === true && !mayCover(b, held)) continue;
      let verified: VerifiedManifest;
      try {
        verified = await verifiedManifest(b.path, options.trust, cache, b.space);
      } catch (error) {
        // Defensive: verifiedManifest throws only RyeErrors; a bug must not read as a refusal.
        /* v8 ignore if */
        if (!isRyeError(error)) throw error;
        refused.push({
          bundleId: b.bundleId,
          space,
          path: b.path,
          code: error.code,
          message: error.message,
        });
        continue;
      }
      const rel = relativeInside(verified.baseDir, target);
      // Defensive: the manifest's base is this space's real base folder, which holds the file.
      /* v8 ignore if */
      if (!rel) continue;
      const entry = verified.manifest.files.get(rel);
      // Includes passed manifestPathProblem: never empty, never a trailing `/`.
      const included = verified.manifest.bundle.includes.some((dir) => rel.startsWith(`${dir}/`));
      if (entry !== undefined || included) {
        covering.push({ verified, relativePath: rel, entry, included });
      }
    }
  }
  return { covering, refused };
}

/**
 * Whether bundle `b`'s manifest could cover the file at `rel` (relative to
 * the manifest's base, `/`-separated) once verified: always for a file
 * outside `.ai/` (an app folder may hold it), else only when one of the
 * bundle's own item folders does. A folder that is no bundle id never
 * verifies.
 */
function mayCover(b: ManifestLocation, rel: string): boolean {
  if (b.idProblem !== undefined) return false;
  if (!rel.startsWith('.ai/')) return true;
  return bundleItemRoots(b.bundleId).some((root) => rel.startsWith(`${root}/`));
}

/** The real path, or the resolved one when it does not exist (nothing there to follow). */
async function realOrResolved(path: string): Promise<string> {
  return realpath(path).catch(() => resolve(path));
}
