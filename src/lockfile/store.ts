import type { Dirent } from 'node:fs';
import { lstatSync, readdirSync } from 'node:fs';
import { mkdir, realpath, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { RyeError, isRyeError } from '../errors/index.js';
import type { ErrorCode } from '../errors/index.js';
import { compareCodePoints } from '../integrity/index.js';
import type { SpaceName, Spaces } from '../items/index.js';
import {
  decodeText,
  messageOf,
  readFileCappedStatSync,
  relativeInside,
  writeFileAtomic,
} from '../platform/index.js';
import { MAX_LOCKFILE_BYTES, parseLockfile } from './parse.js';
import {
  LOCKFILE_SUFFIX,
  lockfileDir,
  lockfileName,
  readOrder,
  versionProblem,
  writeDir,
} from './paths.js';
import type { Lockfile } from './types.js';

/** A lockfile found on disk, parsed, with its text (for signature checks). */
export interface FoundLockfile {
  readonly lockfile: Lockfile;
  readonly path: string;
  readonly space: SpaceName;
  readonly text: string;
}

/**
 * One `*.lock.json` file in a lockfiles folder: parsed (`lockfile` and `text`),
 * or why it is not (`error`) — exactly one of the two is present.
 */
export type ListedLockfile = {
  readonly space: SpaceName;
  readonly path: string;
  /** From the file name (`<toolId>@<version>.lock.json`). */
  readonly toolId: string;
  readonly version: string;
} & (
  | { readonly lockfile: Lockfile; readonly text: string; readonly error?: never }
  | { readonly error: ListingError; readonly lockfile?: never; readonly text?: never }
);

/** Why a listed file is unusable. */
export interface ListingError {
  readonly code: ErrorCode;
  readonly message: string;
}

/**
 * The lockfile of `toolId@version` by read precedence (project → user →
 * system): the first file present wins. A present file that cannot be read or
 * parsed is an error, never a reason to fall through to a lower space (which
 * could hold a stale, looser pin).
 *
 * @throws RyeError LOCKFILE_INVALID (bad name, malformed or oversized file, or a
 *   file whose root is another tool), LOCKFILE_VERSION_UNSUPPORTED, FILE_UNREADABLE.
 */
export async function findLockfile(
  spaces: Spaces,
  toolId: string,
  version: string,
): Promise<FoundLockfile | null> {
  const name = lockfileName(toolId, version);
  for (const { space, dir } of readOrder(spaces)) {
    const path = join(dir, name);
    if ((await entryKind(path)) === null) continue;
    const { lockfile, text } = await readLockfileAt(path, toolId, version);
    return { lockfile, path, space, text };
  }
  return null;
}

/**
 * Write `text` (the caller's serialized, maybe signed, form of `lockfile`)
 * atomically to `<writeDir(rootSpace)>/<toolId>@<version>.lock.json`, creating
 * nested folders. Refuses a text that does not parse or names another tool, and
 * a nested folder that a symbolic link leads out of the lockfiles folder.
 * Returns the path written.
 *
 * @throws RyeError LOCKFILE_INVALID, LOCKFILE_VERSION_UNSUPPORTED, FILE_WRITE_FAILED
 */
export async function writeLockfile(
  spaces: Spaces,
  rootSpace: SpaceName,
  text: string,
  lockfile: Lockfile,
): Promise<string> {
  const { toolId, version } = lockfile.root;
  const dir = writeDir(spaces, rootSpace);
  const path = join(dir, lockfileName(toolId, version));
  checkRoot(parseLockfile(text, path), path, toolId, version);
  try {
    await mkdir(dirname(path), { recursive: true });
    if (relativeInside(await realpath(dir), await realpath(dirname(path))) === undefined)
      throw new Error(`a symbolic link leads out of ${dir}`);
  } catch (error) {
    throw fsError('FILE_WRITE_FAILED', 'write', path, error);
  }
  await writeFileAtomic(path, text);
  return path;
}

/**
 * Every `*.lock.json` under each space's lockfiles folder (recursive, symbolic
 * links not followed), in read precedence then path order. One bad file is
 * reported in its entry (`error`), never thrown.
 *
 * @throws RyeError FILE_UNREADABLE when a folder cannot be listed.
 */
export async function listLockfiles(spaces: Spaces): Promise<ListedLockfile[]> {
  const out: ListedLockfile[] = [];
  for (const { space, dir } of readOrder(spaces)) {
    for (const rel of (await walk(dir, '')).sort(compareCodePoints)) {
      const path = join(dir, rel);
      const stem = rel.slice(0, -LOCKFILE_SUFFIX.length);
      const at = stem.lastIndexOf('@');
      const toolId = at === -1 ? stem : stem.slice(0, at);
      const version = at === -1 ? '' : stem.slice(at + 1);
      try {
        lockfileName(toolId, version);
        const { lockfile, text } = await readLockfileAt(path, toolId, version);
        out.push({ space, path, toolId, version, lockfile, text });
      } catch (error) {
        // Defensive: lockfileName and readLockfileAt throw only RyeErrors.
        /* v8 ignore if */
        if (!isRyeError(error)) throw error;
        const { code, message } = error;
        out.push({ space, path, toolId, version, error: { code, message } });
      }
    }
  }
  return out;
}

/**
 * Remove the lockfiles of `toolId` (one version, or every version) from the
 * project and user spaces; the system space is read-only and never touched.
 * Returns the removed paths.
 *
 * @throws RyeError LOCKFILE_NOT_FOUND when there is none, LOCKFILE_INVALID for a
 *   bad id or version, FILE_WRITE_FAILED when a removal fails.
 */
export async function removeLockfiles(
  spaces: Spaces,
  toolId: string,
  version?: string,
): Promise<string[]> {
  const name = lockfileName(toolId, version ?? '0'); // validates both before any I/O
  const removed: string[] = [];
  for (const space of ['project', 'user'] as const) {
    const named = join(lockfileDir(spaces, space), name);
    const paths = version === undefined ? await allVersions(dirname(named), toolId) : [named];
    for (const path of paths) {
      const kind = await entryKind(path);
      if (kind !== 'file' && kind !== 'symlink') continue;
      try {
        await rm(path);
      } catch (error) {
        throw fsError('FILE_WRITE_FAILED', 'remove', path, error);
      }
      removed.push(path);
    }
  }
  if (removed.length === 0) {
    const what = version === undefined ? `any version of ${toolId}` : `${toolId}@${version}`;
    throw new RyeError(
      'LOCKFILE_NOT_FOUND',
      `Cannot remove the lockfile of ${what}: there is none in the project or user space`,
      {
        toolId,
        version: version ?? null,
        searched: [lockfileDir(spaces, 'project'), lockfileDir(spaces, 'user')],
      },
    );
  }
  return removed;
}

/** `<folder>/<name>@<any version>.lock.json` for the tool's last id segment. */
async function allVersions(folder: string, toolId: string): Promise<string[]> {
  return (await listVersions(folder, toolId)).map((v) => v.path);
}

/**
 * The lockfiles of every version of `toolId` in `folder` (the tool's folder
 * under one lockfiles folder), by file name alone: one directory listing,
 * nothing opened. An absent folder lists nothing.
 *
 * @throws RyeError FILE_UNREADABLE when the folder cannot be listed.
 */
export async function listVersions(
  folder: string,
  toolId: string,
): Promise<{ path: string; version: string }[]> {
  const prefix = `${basename(toolId)}@`;
  return (
    listDir(folder)
      .filter((e) => e.name.startsWith(prefix) && e.name.endsWith(LOCKFILE_SUFFIX))
      .map((e) => ({
        path: join(folder, e.name),
        version: e.name.slice(prefix.length, -LOCKFILE_SUFFIX.length),
      }))
      // A "version" holding '@' is another tool's file (`x@1@2` belongs to tool `x@1`).
      .filter((v) => versionProblem(v.version) === undefined)
  );
}

/**
 * Read and parse one lockfile, refusing one whose root is not `toolId@version`.
 *
 * @throws RyeError LOCKFILE_INVALID, LOCKFILE_VERSION_UNSUPPORTED, FILE_UNREADABLE
 */
export async function readLockfileAt(
  path: string,
  toolId: string,
  version: string,
): Promise<{ lockfile: Lockfile; text: string }> {
  let text: string;
  try {
    // Synchronous (readTextFile's steps): one small file, read before every spawn.
    text = decodeText(readFileCappedStatSync(path, MAX_LOCKFILE_BYTES), path);
  } catch (error) {
    if (!isRyeError(error, 'FILE_TOO_LARGE') && !isRyeError(error, 'FILE_BINARY')) throw error;
    throw new RyeError('LOCKFILE_INVALID', error.message, { path }, { cause: error });
  }
  const lockfile = parseLockfile(text, path);
  checkRoot(lockfile, path, toolId, version);
  return { lockfile, text };
}

/** A lockfile under another tool's name would pin the wrong chain. */
function checkRoot(lockfile: Lockfile, path: string, toolId: string, version: string): void {
  const { root } = lockfile;
  if (root.toolId === toolId && root.version === version) return;
  throw new RyeError(
    'LOCKFILE_INVALID',
    `Cannot read lockfile ${path}: it pins ${root.toolId}@${root.version}, not ${toolId}@${version}`,
    { path, expected: { toolId, version }, actual: { toolId: root.toolId, version: root.version } },
  );
}

async function walk(dir: string, rel: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of listDir(join(dir, rel))) {
    const child = rel === '' ? entry.name : `${rel}/${entry.name}`;
    if (entry.isDirectory()) out.push(...(await walk(dir, child)));
    else if (entry.isFile() && entry.name.endsWith(LOCKFILE_SUFFIX)) out.push(child);
  }
  return out;
}

/**
 * The entries of a folder, or none when it is absent. Synchronous: a tool's
 * lockfile folder is listed on every run by a signer (refuseRollback), and
 * one small listing costs less than the thread-pool trip (and loading
 * node:fs/promises) of its promise form.
 */
function listDir(dir: string): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch (error) {
    if (isAbsent(error)) return [];
    throw fsError('FILE_UNREADABLE', 'list', dir, error);
  }
}

/** What is at `path` without following a final symbolic link, or null. */
async function entryKind(path: string): Promise<'file' | 'symlink' | 'other' | null> {
  try {
    const info = lstatSync(path);
    return info.isFile() ? 'file' : info.isSymbolicLink() ? 'symlink' : 'other';
  } catch (error) {
    if (isAbsent(error)) return null;
    throw fsError('FILE_UNREADABLE', 'read', path, error);
  }
}

function fsError(code: ErrorCode, verb: string, path: string, error: unknown): RyeError {
  return new RyeError(
    code,
    `Cannot ${verb} ${path}: ${messageOf(error)}`,
    { path },
    { cause: error },
  );
}

function isAbsent(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}
