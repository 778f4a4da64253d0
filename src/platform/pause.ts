/**
 * Resolve after `ms` milliseconds: `timers/promises`' `setTimeout` on the
 * global timer, so a wait on the execute path (a cgroup still busy, a process
 * group still exiting) loads no module of its own on a loaded machine.
 */
export function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
