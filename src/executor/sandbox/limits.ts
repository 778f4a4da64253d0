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
import { pause } from '../../platform/index.js';

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
  /**
   * Remove the group once its processes are gone (the kernel tears a PID
   * namespace down after bwrap exits), in the background: the call that ran
   * the sandbox does not wait for the teardown, and the process stays alive
   * until the group is gone.
   */
  release(): void;
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
      rmdirQuietly(dir);
      continue;
    }
    return {
      dir,
      enter: ['/bin/sh', '-c', 'echo $$ > "$0/cgroup.procs" && exec "$@"', dir],
      release: () => void removePidsGroup(dir),
    };
  }
  return null;
}

/**
 * rmdir the group. While the sandbox's namespace is still being torn down the
 * group is busy (EBUSY): wait for it, up to ~2 s, so a run leaves no group.
 * Never rejects.
 */
export async function removePidsGroup(dir: string): Promise<void> {
  for (let tries = 0; tries < 200; tries += 1) {
    try {
      rmdirSync(dir);
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EBUSY') return;
    }
    await pause(tries < 20 ? 1 : 10);
  }
}

function rmdirQuietly(dir: string): void {
  try {
    rmdirSync(dir);
  } catch {
    // an empty group the kernel keeps cheaply
  }
}
