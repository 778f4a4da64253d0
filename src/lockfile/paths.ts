import { join } from 'node:path';
import { RyeError } from '../errors/index.js';
import { aiDir, parseItemId } from '../items/index.js';
import type { SpaceName, Spaces } from '../items/index.js';

/** Suffix of every lockfile name. */
export const LOCKFILE_SUFFIX = '.lock.json';

const VERSION_RE = /^[0-9A-Za-z.+-]+$/;

/** Why a tool version cannot name a lockfile, or undefined when it can. */
export function versionProblem(version: string): string | undefined {
  if (!VERSION_RE.test(version)) return 'it has characters outside [0-9A-Za-z.+-] or is empty';
  if (version.includes('..')) return 'it contains ".."';
  return undefined;
}

/**
 * `<toolId>@<version>.lock.json`, relative to a lockfiles folder. The tool id
 * keeps its slashes (nested folders); neither part can leave the folder: the id
 * passes `parseItemId` and the version has no `/`, `@` or `..`.
 *
 * @throws RyeError LOCKFILE_INVALID naming the bad part.
 */
export function lockfileName(toolId: string, version: string): string {
  try {
    parseItemId(toolId);
  } catch (error) {
    throw new RyeError(
      'LOCKFILE_INVALID',
      `Cannot name a lockfile for tool "${toolId.slice(0, 120)}": ${(error as Error).message}`,
      { toolId, version },
      { cause: error },
    );
  }
  const why = versionProblem(version);
  if (why !== undefined) {
    throw new RyeError(
      'LOCKFILE_INVALID',
      `Cannot name a lockfile for ${toolId} version "${version.slice(0, 120)}": ${why}`,
      { toolId, version },
    );
  }
  return `${toolId}@${version}${LOCKFILE_SUFFIX}`;
}

/**
 * Why a path recorded in a lockfile (`anchor_path`, a `files` key) is unsafe, or
 * undefined when it is a plain relative path: `/`-separated, not absolute, no
 * drive letter, backslash, control character, lone surrogate, or empty, `.` or
 * `..` segment, so joining it under its root can never leave that root.
 */
export function relativePathProblem(path: string): string | undefined {
  if (path === '') return 'it is empty';
  if (path.includes('\\')) return 'it contains a backslash';
  if (path.startsWith('/')) return 'it is absolute';
  if (/^[A-Za-z]:/.test(path)) return 'it starts with a drive letter';
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  if (/[\u0000-\u001f\u007f]/.test(path)) return 'it contains control characters';
  if (LONE_SURROGATE.test(path)) return 'it contains a lone surrogate (no file can have that name)';
  for (const segment of path.split('/')) {
    if (segment === '') return 'it has an empty segment';
    if (segment === '.' || segment === '..') return `it has a "${segment}" segment`;
  }
  return undefined;
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** `<base>/.ai/lockfiles` of a space. Pure. */
export function lockfileDir(spaces: Spaces, space: SpaceName): string {
  return join(aiDir(spaces, space), 'lockfiles');
}

/** A lockfiles folder and the space it belongs to. */
export interface LockfileLocation {
  readonly space: SpaceName;
  readonly dir: string;
}

/** Read precedence (seed 001 "Three-Tier Precedence"): project → user → system; first hit wins. */
export function readOrder(spaces: Spaces): LockfileLocation[] {
  return (['project', 'user', 'system'] as const).map((space) => ({
    space,
    dir: lockfileDir(spaces, space),
  }));
}

/**
 * Where a new lockfile goes (seed 000 "Lockfile Scope"): it follows the root
 * tool's space; project → the project folder, user and system → the user folder
 * (the system space is read-only).
 */
export function writeDir(spaces: Spaces, rootSpace: SpaceName): string {
  return lockfileDir(spaces, rootSpace === 'project' ? 'project' : 'user');
}
