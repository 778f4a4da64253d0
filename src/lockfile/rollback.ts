import { dirname, join } from 'node:path';
import { isRyeError } from '../errors/index.js';
import type { TrustedKey } from '../integrity/index.js';
import { compareSemver, isSemver, type SpaceName, type Spaces } from '../items/index.js';
import { signedByOwnKey } from './own-key.js';
import { lockfileName, readOrder } from './paths.js';
import { listVersions, readLockfileAt } from './store.js';

/** A lockfile of the user's that pins a newer version of a tool than the one about to run. */
export interface NewerLockfile {
  readonly path: string;
  readonly space: SpaceName;
  readonly version: string;
}

/**
 * A lockfile signed by the user's own key `own` that pins a higher semver
 * version of `toolId` than `version` (the first found in read precedence,
 * newest first within a folder), or null. Restoring an older
 * signed release (with its old lockfile) is a rollback the signatures alone
 * cannot see: every file is validly signed. The user's own pin of a newer
 * version is the evidence that the older one was superseded.
 *
 * Cheap on the warm path: one directory listing of the tool's folder per
 * lockfiles folder (project, user, system); only files whose names carry a
 * higher version are opened. A version that is not semver cannot be ordered:
 * such a lockfile is ignored, and a running version that is not semver counts
 * as older than every semver one (fail closed). A candidate that does not
 * parse, names another tool, or is not signed by `own` is ignored — it proves
 * nothing either way.
 *
 * @throws RyeError LOCKFILE_INVALID for a bad id or version, FILE_UNREADABLE
 *   when a folder cannot be listed.
 */
export async function findNewerOwnLockfile(
  spaces: Spaces,
  toolId: string,
  version: string,
  own: TrustedKey,
): Promise<NewerLockfile | null> {
  const name = lockfileName(toolId, version); // validates both before any I/O
  const running = isSemver(version) ? version : null;
  for (const { space, dir } of readOrder(spaces)) {
    const newer = (await listVersions(dirname(join(dir, name)), toolId))
      .filter(
        (v) => isSemver(v.version) && (running === null || compareSemver(v.version, running) > 0),
      )
      .sort((a, b) => compareSemver(b.version, a.version));
    for (const candidate of newer) {
      let text: string;
      try {
        ({ text } = await readLockfileAt(candidate.path, toolId, candidate.version));
      } catch (error) {
        // Defensive: readLockfileAt throws only RyeErrors.
        /* v8 ignore if */
        if (!isRyeError(error)) throw error;
        continue;
      }
      if (signedByOwnKey(text, candidate.path, own)) return { ...candidate, space };
    }
  }
  return null;
}
