import { existsSync, lstatSync, mkdirSync, realpathSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { RyeError } from '../../errors/index.js';
import { relativeInside } from '../../platform/index.js';
import { parseThreadId } from '../../ids/index.js';

/** Where one thread's files live (THREADS.md §8). */
export interface ThreadPaths {
  readonly threadId: string;
  readonly dir: string;
  readonly record: string;
  readonly transcript: string;
  readonly artifacts: string;
}

export const RECORD_FILE = 'thread.json';
export const TRANSCRIPT_FILE = 'transcript.jsonl';
export const ARTIFACTS_DIR = 'artifacts';
export const TREE_LOCK_FILE = 'tree.lock';
export const REGISTRY_DB_FILE = 'registry.db';

/** `<project>/.ai/threads`, absolute. */
export function threadsRoot(projectRoot: string): string {
  return resolve(projectRoot, '.ai', 'threads');
}

/** `<project>/.ai/threads/registry.db`: the thread registry and the budget ledger. */
export function registryDbPath(projectRoot: string): string {
  return join(threadsRoot(projectRoot), REGISTRY_DB_FILE);
}

/**
 * The paths of a thread's files. The id is checked against the thread-id
 * grammar before any join, and the result is checked to lie inside
 * `.ai/threads/` (THREADS.md §8). Pure: nothing is touched on disk.
 *
 * @throws RyeError THREAD_ID_INVALID
 */
export function threadPaths(projectRoot: string, threadId: unknown): ThreadPaths {
  const id = parseThreadId(threadId);
  const root = threadsRoot(projectRoot);
  const dir = join(root, id);
  const rel = relativeInside(root, dir);
  if (rel === undefined || rel === '' || rel.includes('/')) {
    throw new RyeError('THREAD_ID_INVALID', `Cannot use thread id ${id}: it leaves .ai/threads`, {
      value: id,
    });
  }
  return {
    threadId: id,
    dir,
    record: join(dir, RECORD_FILE),
    transcript: join(dir, TRANSCRIPT_FILE),
    artifacts: join(dir, ARTIFACTS_DIR),
  };
}

/** `<project>/.ai/threads/<root id>/tree.lock`. @throws RyeError THREAD_ID_INVALID */
export function treeLockPath(projectRoot: string, rootThreadId: unknown): string {
  return join(threadPaths(projectRoot, rootThreadId).dir, TREE_LOCK_FILE);
}

/**
 * Check on disk that a thread's folder is a real folder whose real path is
 * inside the real `.ai/threads/` (no symbolic link carries writes elsewhere);
 * with `create`, make the folders first (0700).
 *
 * @throws RyeError INTEGRITY_SYMLINK_ESCAPE, THREAD_NOT_FOUND (missing, without `create`)
 */
export function checkThreadDir(projectRoot: string, paths: ThreadPaths, create = false): void {
  const root = threadsRoot(projectRoot);
  if (create) mkdirSync(paths.artifacts, { recursive: true, mode: 0o700 });
  if (!existsSync(paths.dir)) {
    throw new RyeError('THREAD_NOT_FOUND', `Cannot find thread ${paths.threadId} under ${root}`, {
      thread: paths.threadId,
      path: paths.dir,
    });
  }
  for (const dir of [paths.dir, ...(existsSync(paths.artifacts) ? [paths.artifacts] : [])]) {
    if (lstatSync(dir).isSymbolicLink() || !lstatSync(dir).isDirectory()) {
      throw escape(dir, 'is a symbolic link or not a folder');
    }
  }
  const realRoot = realpathSync(root);
  const rel = relativeInside(realRoot, realpathSync(paths.dir));
  if (rel === undefined || rel === '') throw escape(paths.dir, `resolves outside ${realRoot}`);
}

function escape(path: string, why: string): RyeError {
  return new RyeError('INTEGRITY_SYMLINK_ESCAPE', `Cannot use ${path}: it ${why}`, { path });
}
