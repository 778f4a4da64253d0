import { readFileSync, readdirSync, readlinkSync } from 'node:fs';

/**
 * True while a process with this pid runs (a zombie waiting for its reaper counts as gone: an
 * init that is slow to reap, as in some containers, leaves exited processes as
 * zombies that `kill(pid, 0)` still finds).
 */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    // Linux: the state follows the parenthesised command name.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true;
  }
}

/**
 * Host pids of the live processes whose working directory is `dir` or under
 * it. A sandboxed tool runs in its own PID namespace, so a pid it writes down
 * names nothing on the host: find its processes by where they run instead.
 */
export function processesUnder(dir: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let cwd: string;
    try {
      cwd = readlinkSync(`/proc/${name}/cwd`);
    } catch {
      continue;
    }
    if ((cwd === dir || cwd.startsWith(`${dir}/`)) && processAlive(Number(name)))
      found.push(Number(name));
  }
  return found;
}

/**
 * The host pid of the live process under `dir` (as `processesUnder`) that
 * saw itself as `ownPid`: the pid a sandboxed tool writes down is its own PID
 * namespace's, the innermost one of `NSpid` in the host's
 * `/proc/<pid>/status` (without a sandbox the two are the same).
 */
export function hostPidOf(ownPid: number, dir: string): number | undefined {
  return processesUnder(dir).find((pid) => {
    try {
      const line = /^NSpid:\s*(.*)$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
      return Number(line?.trim().split(/\s+/).at(-1)) === ownPid;
    } catch {
      return false;
    }
  });
}
