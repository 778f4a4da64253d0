/**
 * What a bundle manifest may speak for (seed 002, "What Gets Bundled"): only
 * its own bundle's folders, by the lane rule (bundle-lane.ts). A signature
 * proves who wrote a manifest, not that it is about this bundle: a trusted
 * manifest of `apps/a` listing `.ai/tools/apps/b/x.py`, `.env` or
 * `web/node_modules/x` without an app folder would otherwise vouch for files
 * that are not its own.
 */
import { isRyeError } from '../errors/index.js';
import { laneChecker } from './bundle-lane.js';
import { bundleItemRoots, bundleRoots, isManifestPath } from './collect.js';
import type { BundleManifest } from './types.js';

/**
 * Why `manifest` may not be used as bundle `bundleId`'s, or undefined when it
 * may: it declares another id, declares an include that is not an app folder
 * (`includeProblem`: a dot-path, a dependency folder, inside `.ai/`, …), or
 * lists a path outside the lane (`lanePathProblem`: not strictly below its
 * item folders or app folders, a dot segment, `node_modules` outside an app
 * folder) or under `.ai/bundles/`. Pure; never throws a RyeError (an id or
 * include refusal is returned as the reason).
 */
export function manifestScopeProblem(
  manifest: BundleManifest,
  bundleId: string,
): string | undefined {
  const declared = manifest.bundle.id;
  if (declared !== bundleId) return `it declares bundle ${declared}, not ${bundleId}`;
  const { includes } = manifest.bundle;
  let itemRoots: string[];
  try {
    bundleRoots(bundleId, includes);
    itemRoots = bundleItemRoots(bundleId);
  } catch (error) {
    // Defensive: bundleRoots and bundleItemRoots throw only RyeErrors.
    /* v8 ignore if */
    if (!isRyeError(error)) throw error;
    return `it declares a bad folder (${error.message})`;
  }
  const laneProblem = laneChecker(itemRoots, includes);
  for (const path of manifest.files.keys()) {
    if (isManifestPath(path)) return `it lists ${path.slice(0, 200)}, outside the bundle's folders`;
    const why = laneProblem(path);
    if (why !== undefined) return why;
  }
  return undefined;
}
