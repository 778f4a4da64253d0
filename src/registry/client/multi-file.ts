import { basename, dirname, join } from 'node:path';
import { pathExists } from '../../platform/index.js';

/** Files that make a tool's folder a package of several files, not one item. */
export const PACKAGE_MARKERS = ['__init__.py', 'pyproject.toml', 'package.json'] as const;

/**
 * A warning when the tool at `path` sits in a folder with a package marker:
 * pushed alone, the item arrives without the files it imports, so the pull
 * runs (or fails) differently from the author's copy. null when no marker.
 */
export async function multiFileWarning(path: string, itemId: string): Promise<string | null> {
  const folder = dirname(path);
  const found: string[] = [];
  for (const marker of PACKAGE_MARKERS)
    if (await pathExists(join(folder, marker))) found.push(marker);
  if (found.length === 0) return null;
  return `${itemId} sits in a multi-file tool folder (${basename(folder)}/ has ${found.join(', ')}): push only pushes this one file; to ship the whole folder, create a bundle (\`rye bundle create\`) and publish it with \`rye registry push-bundle\``;
}
