/**
 * The app folders a user declares with `rye bundle create --include`: checked
 * as command-line input before anything is walked or hashed, so a bad one is a
 * usage error naming it (exit 2), never a half-made manifest.
 */
import { lstat } from 'node:fs/promises';
import { join } from 'node:path';
import { RyeError } from '../errors/index.js';
import { unreadable } from '../platform/index.js';
import { includeProblem } from './bundle-lane.js';
import { comparePaths } from './manifest-path.js';

/** Leading `./` and trailing `/` dropped, duplicates removed, sorted: one spelling per folder. */
export function normalizeIncludes(includes: readonly string[]): string[] {
  const cleaned = includes.map((i) => i.replace(/^(?:\.\/)+/, '').replace(/\/+$/, ''));
  return [...new Set(cleaned)].sort(comparePaths);
}

/**
 * Check normalized includes: each must be an app folder by the lane rule
 * (`includeProblem`: inside the project, plain names, not in `.ai/`), exist,
 * and not be a file. A link there (or on the way) is left to the walk, which
 * refuses it as a hostile bundle folder.
 *
 * @throws RyeError USAGE_INVALID_ARGUMENT (a bad or missing include),
 *   FILE_UNREADABLE.
 */
export async function assertIncludesUsable(
  projectPath: string,
  bundleId: string,
  includes: readonly string[],
): Promise<void> {
  for (const include of includes) {
    const shown = JSON.stringify(include.slice(0, 200));
    const why = includeProblem(include);
    if (why !== undefined) {
      throw new RyeError(
        'USAGE_INVALID_ARGUMENT',
        `Cannot include ${shown} in bundle ${bundleId}: ${why}; --include takes an app folder inside the project, e.g. --include task-manager`,
        { bundleId, include },
      );
    }
    const path = join(projectPath, ...include.split('/'));
    let isFile: boolean;
    try {
      isFile = (await lstat(path)).isFile();
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw unreadable(path, error);
      throw new RyeError(
        'USAGE_INVALID_ARGUMENT',
        `Cannot include ${shown} in bundle ${bundleId}: there is no folder ${path}`,
        { bundleId, include, path },
      );
    }
    if (isFile) {
      throw new RyeError(
        'USAGE_INVALID_ARGUMENT',
        `Cannot include ${shown} in bundle ${bundleId}: ${path} is a file; --include takes a folder`,
        { bundleId, include, path },
      );
    }
  }
}
