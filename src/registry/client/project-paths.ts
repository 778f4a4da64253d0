/**
 * Where pulled files land: project-relative paths resolved under the project,
 * refused when they could leave it — a bad path, or an existing folder on the
 * way that is a symbolic link (which could point anywhere).
 */
import type { Stats } from 'node:fs';
import { lstat } from 'node:fs/promises';
import { join } from 'node:path';
import { RyeError } from '../../errors/index.js';
import { manifestPathProblem } from '../../bundle/index.js';
import { readFileCapped, unreadable } from '../../platform/index.js';

/** What is at a target path now. */
export interface Target {
  readonly rel: string;
  readonly absolute: string;
  /** `file`: a regular file of `size` bytes; `link`: a symbolic link; `other`: a folder or special file. */
  readonly kind: 'missing' | 'file' | 'link' | 'other';
  readonly size: number;
}

/**
 * Check a project-relative path for writing and report what is there.
 *
 * @throws RyeError REGISTRY_CONTENT_INVALID (the path is not a safe relative
 *   path), INTEGRITY_SYMLINK_ESCAPE (a folder on the way is a link),
 *   REGISTRY_PULL_CONFLICT (a file where a folder must be), FILE_UNREADABLE.
 */
export async function inspectTarget(project: string, rel: string): Promise<Target> {
  const why = manifestPathProblem(rel);
  if (why !== undefined) {
    throw new RyeError(
      'REGISTRY_CONTENT_INVALID',
      `Cannot write ${rel.slice(0, 200)} into the project: ${why}`,
      { path: rel.slice(0, 200) },
    );
  }
  const root = await statOf(project);
  if (root === null || !root.isDirectory())
    throw unreadable(project, new Error('the project folder does not exist'));
  const segments = rel.split('/');
  let current = project;
  for (const segment of segments.slice(0, -1)) {
    current = join(current, segment);
    const info = await statOf(current);
    if (info === null)
      return { rel, absolute: join(project, ...segments), kind: 'missing', size: 0 };
    if (info.isSymbolicLink()) {
      throw new RyeError(
        'INTEGRITY_SYMLINK_ESCAPE',
        `Cannot write ${rel}: ${current} is a symbolic link, so the file could land outside the project`,
        { path: rel, link: current },
      );
    }
    if (!info.isDirectory()) {
      throw new RyeError(
        'REGISTRY_PULL_CONFLICT',
        `Cannot write ${rel}: ${current} is a file, not a folder`,
        { path: rel, conflict: current },
      );
    }
  }
  const absolute = join(project, ...segments);
  const info = await statOf(absolute);
  if (info === null) return { rel, absolute, kind: 'missing', size: 0 };
  const kind = info.isSymbolicLink() ? 'link' : info.isFile() ? 'file' : 'other';
  return { rel, absolute, kind, size: info.size };
}

/** True when the target is a regular file holding exactly `bytes`. */
export async function holdsBytes(target: Target, bytes: Uint8Array): Promise<boolean> {
  if (target.kind !== 'file' || target.size !== bytes.byteLength) return false;
  return Buffer.from(bytes).equals(await readFileCapped(target.absolute, bytes.byteLength));
}

/** REGISTRY_PULL_CONFLICT for a target that holds something else. */
export function conflict(target: Target, why = 'a different file is there'): RyeError {
  return new RyeError(
    'REGISTRY_PULL_CONFLICT',
    `Cannot write ${target.rel}: ${why}; pass --force to replace it`,
    { path: target.absolute },
  );
}

async function statOf(path: string): Promise<Stats | null> {
  try {
    return await lstat(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw unreadable(path, error);
  }
}
