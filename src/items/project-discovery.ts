/**
 * Which folder is the project when a command runs without `--project`: the
 * nearest folder, from the working directory upward, that holds a `.ai/`
 * folder — the way git finds its repository from a subfolder.
 *
 * The walk looks at the working directory and each parent, and stops without
 * looking at (a) the user's home folder and the user space base, whose `.ai/`
 * is user space, never a project, and (b) the filesystem root. A `.ai` counts
 * only as a real folder (not a link) owned by the user running rye: a shared
 * parent such as `/tmp` may hold a `.ai/` planted by someone else, and the
 * walk stops at one it will not use rather than skip past it. When nothing is
 * found the working directory is the project, as before.
 */
import { lstatSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { RyeError } from '../errors/index.js';

/** Where discovery ended up, and how. */
export interface DiscoveredProject {
  readonly path: string;
  /** `found`: an ancestor (or the cwd) holds `.ai/`; `default`: nothing found, the cwd. */
  readonly how: 'found' | 'default';
}

/**
 * Walk up from `cwd` to the nearest folder with a usable `.ai/` (see the
 * module comment). `stops` are folders never looked at and never passed
 * (home, user space base). Synchronous: a few lstat calls. Never throws.
 */
export function discoverProject(cwd: string, stops: readonly string[]): DiscoveredProject {
  const start = resolve(cwd);
  const stopAt = new Set(stops.map((s) => resolve(s)));
  const uid = typeof process.getuid === 'function' ? process.getuid() : null;
  for (let dir = start; !stopAt.has(dir) && dirname(dir) !== dir; dir = dirname(dir)) {
    const found = aiFolder(join(dir, '.ai'), uid);
    if (found === 'mine') return { path: dir, how: 'found' };
    if (found === 'foreign') break;
  }
  return { path: start, how: 'default' };
}

function aiFolder(path: string, uid: number | null): 'mine' | 'foreign' | 'none' {
  let info;
  try {
    info = lstatSync(path);
  } catch {
    return 'none';
  }
  if (!info.isDirectory()) return info.isSymbolicLink() ? 'foreign' : 'none';
  return uid === null || info.uid === uid ? 'mine' : 'foreign';
}

/**
 * Check a `--project` folder before anything reads below it: it must exist and
 * be a folder (a typo there would otherwise surface as ITEM_NOT_FOUND).
 *
 * @throws RyeError PROJECT_NOT_FOUND
 */
export function assertProjectFolder(path: string): void {
  let isDirectory: boolean;
  try {
    isDirectory = statSync(path).isDirectory();
  } catch {
    throw new RyeError('PROJECT_NOT_FOUND', `Cannot use project ${path}: there is no such folder`, {
      path,
    });
  }
  if (!isDirectory) {
    throw new RyeError('PROJECT_NOT_FOUND', `Cannot use project ${path}: it is not a folder`, {
      path,
    });
  }
}
