/**
 * Resource limits of a sandbox (CONTAINMENT.md §1.10). `RLIMIT_NOFILE`,
 * `RLIMIT_NPROC` and `RLIMIT_FSIZE` are set by `prlimit` inside the sandbox,
 * after bwrap made its user namespace: the process count is then the
 * sandbox's own, not every process of the user. The kernel does not apply
 * `RLIMIT_NPROC` to root, so when rye runs as root each sandbox also gets a
 * pids cgroup of its own, where one can be made.
 */
import { existsSync, mkdirSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';

/** Open files per process. */
export const MAX_OPEN_FILES = 1024;
/** Processes (and threads) of one sandbox: enough for a test runner, not for a fork bomb. */
export const MAX_PROCESSES = 512;

const PRLIMIT = ['/usr/bin/prlimit', '/bin/prlimit'];

/** `prlimit …  --` to put before the program inside, or null when the host has no prlimit. */
export function limitPrefix(maxFileMb: number): string[] | null {
  const prlimit = PRLIMIT.find((path) => existsSync(path));
  if (prlimit === undefined) return null;
  const fsize = maxFileMb * 1024 * 1024;
  return [
    prlimit,
    `--nofile=${MAX_OPEN_FILES}:${MAX_OPEN_FILES}`,
    `--nproc=${MAX_PROCESSES}:${MAX_PROCESSES}`,
    `--fsize=${fsize}:${fsize}`,
    '--',
  ];
}

/** A pids cgroup made for one sandbox, and how to enter it before bwrap starts. */
export interface PidsGroup {
  readonly dir: string;
  /** `/bin/sh -c 'echo $$ > …/cgroup.procs && exec "$@"' <dir>`: prefix of the bwrap command. */
  readonly enter: readonly string[];
  remove(): void;
}

const PIDS_ROOTS = ['/sys/fs/cgroup/pids', '/sys/fs/cgroup'];

/**
 * A fresh pids cgroup limited to {@link MAX_PROCESSES}, when rye runs as root
 * and the host lets it make one (cgroup v1 `pids`, or v2 with the pids
 * controller); null otherwise.
 */
export function makePidsGroup(): PidsGroup | null {
  if (process.getuid?.() !== 0) return null;
  for (const root of PIDS_ROOTS) {
    if (!existsSync(join(root, 'cgroup.procs'))) continue;
    const dir = join(root, `rye-${randomBytes(6).toString('hex')}`);
    try {
      mkdirSync(dir);
    } catch {
      continue;
    }
    try {
      writeFileSync(join(dir, 'pids.max'), String(MAX_PROCESSES));
    } catch {
      removeGroup(dir);
      continue;
    }
    return {
      dir,
      enter: ['/bin/sh', '-c', 'echo $$ > "$0/cgroup.procs" && exec "$@"', dir],
      remove: () => removeGroup(dir),
    };
  }
  return null;
}

/** rmdir the group; while the sandbox is still being torn down it is busy (EBUSY): try again for ~2 s. */
function removeGroup(dir: string, tries = 40): void {
  try {
    rmdirSync(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EBUSY' && tries > 0) setTimeout(() => removeGroup(dir, tries - 1), 50).unref();
  }
}
