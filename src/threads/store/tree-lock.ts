import { randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  fstatSync,
  linkSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { RyeError } from '../../errors/index.js';
import { messageOf, readOpenFileSync } from '../../platform/index.js';

/** Who holds a tree lock. `start` is the process start time where the OS tells it (Linux). */
export interface LockHolder {
  readonly pid: number;
  readonly start: string | null;
  /** Random per acquisition, so a lock is never mistaken for another with the same pid. */
  readonly nonce: string;
  readonly acquired_at: string;
}

/** A held tree lock; `release()` removes it only while it is still this holder's. */
export interface TreeLock {
  readonly path: string;
  readonly holder: LockHolder;
  release(): void;
}

const MAX_LOCK_BYTES = 4096;

/**
 * The start time of a process, as field 22 of `/proc/<pid>/stat` (clock ticks
 * since boot), or null where there is no `/proc` or the process is gone. With
 * the pid it names a process uniquely, so a reused pid is not mistaken for the
 * holder.
 */
export function processStartTime(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    // The command name (field 2) is in parentheses and may hold spaces or ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const start = fields[19];
    return start !== undefined && /^\d+$/.test(start) ? start : null;
  } catch {
    return null;
  }
}

/**
 * True while the holder's process runs: the pid exists (EPERM counts: another
 * user's live process) and, where both start times are known, it is the same
 * process that took the lock.
 */
export function holderAlive(holder: LockHolder): boolean {
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  if (holder.start === null) return true;
  const now = processStartTime(holder.pid);
  return now === null || now === holder.start;
}

/**
 * Take the tree lock at `path` (THREADS.md §8, §10 step 1). The lock file is
 * created whole and atomically (written to a temp file opened O_EXCL, then
 * hard-linked into place, which fails if the lock exists), so no reader ever
 * sees it half written. A lock whose holder is dead is taken over under a
 * second, short-lived guard lock (`<path>.takeover`): only the guard's holder
 * removes a stale lock, after checking it is still that dead holder's, so two
 * contenders never both win. A lock that cannot be read is never taken over.
 *
 * @throws RyeError THREAD_LOCKED (a live holder, an unreadable lock file, or
 *   another process taking it over); FILE_WRITE_FAILED
 */
export function acquireTreeLock(path: string): TreeLock {
  const holder = newHolder();
  const text = JSON.stringify(holder);
  if (createExclusive(path, text)) return heldLock(path, holder, text);
  const current = readTreeLock(path);
  if (current === undefined) {
    if (createExclusive(path, text)) return heldLock(path, holder, text);
    throw locked(path, readTreeLock(path)?.holder ?? null, 'another process took it first');
  }
  if (current === null) {
    throw locked(path, null, 'the lock file cannot be read; remove it if no rye process runs');
  }
  if (holderAlive(current.holder)) {
    throw locked(path, current.holder, `process ${current.holder.pid} holds it`);
  }
  const guard = takeGuard(`${path}.takeover`);
  try {
    // Under the guard nobody else removes a stale lock, and a dead holder
    // releases nothing: if the lock still reads as the dead one, it is.
    const again = readTreeLock(path);
    if (again?.text === current.text) rmSync(path, { force: true });
    if (createExclusive(path, text)) return heldLock(path, holder, text);
    throw locked(path, readTreeLock(path)?.holder ?? null, 'another process took it first');
  } finally {
    guard.release();
  }
}

function newHolder(): LockHolder {
  return {
    pid: process.pid,
    start: processStartTime(process.pid),
    nonce: randomBytes(16).toString('hex'),
    acquired_at: new Date().toISOString(),
  };
}

/**
 * The takeover guard. A guard left by a process that died mid-takeover is
 * moved aside and checked to be that same dead guard before it is removed.
 */
function takeGuard(path: string): TreeLock {
  const holder = newHolder();
  const text = JSON.stringify(holder);
  for (let attempt = 0; attempt < 2; attempt += 1) {
    if (createExclusive(path, text)) return heldLock(path, holder, text);
    const current = readTreeLock(path);
    if (current === undefined) continue;
    if (current !== null && holderAlive(current.holder)) {
      throw locked(path, current.holder, 'another process is taking over this lock');
    }
    if (current === null) throw locked(path, null, 'the takeover guard cannot be read; remove it');
    removeIfStill(path, current.text);
  }
  throw locked(path, null, 'another process is taking over this lock');
}

/**
 * The lock's holder and raw text; `undefined` when there is no lock, `null`
 * when the file is not a lock rye wrote.
 */
export function readTreeLock(
  path: string,
): { holder: LockHolder; text: string } | null | undefined {
  let fd: number;
  try {
    fd = openSync(
      path,
      constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0),
    );
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? undefined : null;
  }
  try {
    const info = fstatSync(fd);
    if (!info.isFile() || info.size > MAX_LOCK_BYTES) return null;
    const text = readOpenFileSync(fd, info.size).toString('utf8');
    const holder = parseHolder(text);
    return holder === null ? null : { holder, text };
  } finally {
    closeSync(fd);
  }
}

function parseHolder(text: string): LockHolder | null {
  try {
    const value = JSON.parse(text) as Partial<LockHolder>;
    if (
      Number.isSafeInteger(value.pid) &&
      (value.pid ?? 0) > 0 &&
      (value.start === null || (typeof value.start === 'string' && /^\d+$/.test(value.start))) &&
      typeof value.nonce === 'string' &&
      typeof value.acquired_at === 'string'
    ) {
      return value as LockHolder;
    }
  } catch {
    // not JSON: not ours
  }
  return null;
}

/** Create `path` holding `text`, atomically; false when it exists. */
function createExclusive(path: string, text: string): boolean {
  const temp = join(dirname(path), `.tree.lock.${process.pid}.${randomBytes(6).toString('hex')}`);
  try {
    writeFileSync(temp, text, { mode: 0o600, flag: 'wx' });
    try {
      linkSync(temp, path);
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw error;
    }
  } catch (error) {
    throw new RyeError(
      'FILE_WRITE_FAILED',
      `Cannot create lock ${path}: ${messageOf(error)}`,
      { path },
      { cause: error },
    );
  } finally {
    rmSync(temp, { force: true });
  }
}

/** Remove `path` if it still holds `staleText`: moved aside first, put back if it changed meanwhile. */
function removeIfStill(path: string, staleText: string): void {
  const aside = `${path}.stale.${process.pid}.${randomBytes(6).toString('hex')}`;
  try {
    renameSync(path, aside);
  } catch {
    return;
  }
  let moved: string | null = null;
  try {
    moved = readFileSync(aside, 'utf8');
  } catch {
    moved = null;
  }
  if (moved !== staleText) {
    try {
      linkSync(aside, path);
    } catch {
      // someone created one meanwhile; theirs stands
    }
  }
  rmSync(aside, { force: true });
}

function heldLock(path: string, holder: LockHolder, text: string): TreeLock {
  return {
    path,
    holder,
    release() {
      const current = readTreeLock(path);
      if (current?.text === text) {
        try {
          unlinkSync(path);
        } catch {
          // already gone
        }
      }
    },
  };
}

function locked(path: string, holder: LockHolder | null, why: string): RyeError {
  return new RyeError('THREAD_LOCKED', `Cannot take the tree lock ${path}: ${why}`, {
    path,
    pid: holder?.pid ?? null,
    acquired_at: holder?.acquired_at ?? null,
  });
}
