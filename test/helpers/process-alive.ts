import { readFileSync } from 'node:fs';

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
