import { statSync } from 'node:fs';
import { join } from 'node:path';
import { SPACE_NAMES, aiDir, type SpaceName, type Spaces } from '../items/index.js';

/** `<space>/.ai/bundles`, where a space's bundle manifests lie. */
export function bundlesDir(spaces: Spaces, space: SpaceName): string {
  return join(aiDir(spaces, space), 'bundles');
}

/**
 * False only when no space has a bundles folder, so no manifest can cover
 * anything (`findBundlesFor` would find none): the executor then loads neither
 * the bundle code nor its YAML parser. True whenever in doubt (an error other
 * than "no such entry"), so the caller takes the full path and its refusals.
 * Synchronous: three stats, cheaper than a dynamic import.
 */
export function mayHaveBundles(spaces: Spaces): boolean {
  return SPACE_NAMES.some((space) => {
    try {
      return statSync(bundlesDir(spaces, space), { throwIfNoEntry: false }) !== undefined;
    } catch {
      return true;
    }
  });
}
