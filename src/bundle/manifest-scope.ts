/**
 * What a bundle manifest may speak for (seed 002, "What Gets Bundled"): only
 * its own bundle's folders. A signature proves who wrote a manifest, not that
 * it is about this bundle: a trusted manifest of `apps/a` listing
 * `.ai/tools/apps/b/x.py` would otherwise vouch for another bundle's code.
 */
import { isRyeError } from '../errors/index.js';
import { bundleRoots, isManifestPath } from './collect.js';
import type { BundleManifest } from './types.js';

/**
 * Why `manifest` may not be used as bundle `bundleId`'s, or undefined when it
 * may: it declares another id, declares an include that is not a bundle
 * folder (see {@link bundleRoots}), or lists a path outside
 * `bundleRoots(bundleId, includes)` or under `.ai/bundles/`. Pure; never
 * throws a RyeError (an id or include refusal is returned as the reason).
 */
export function manifestScopeProblem(
  manifest: BundleManifest,
  bundleId: string,
): string | undefined {
  const declared = manifest.bundle.id;
  if (declared !== bundleId) return `it declares bundle ${declared}, not ${bundleId}`;
  let roots: string[];
  try {
    roots = bundleRoots(bundleId, manifest.bundle.includes);
  } catch (error) {
    if (!isRyeError(error)) throw error;
    return `it declares a bad folder (${error.message})`;
  }
  for (const path of manifest.files.keys()) {
    if (isManifestPath(path) || !roots.some((r) => path === r || path.startsWith(`${r}/`)))
      return `it lists ${path.slice(0, 200)}, outside the bundle's folders`;
  }
  return undefined;
}
