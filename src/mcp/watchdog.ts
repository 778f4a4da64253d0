/** How often the parent is checked, in ms. */
export const WATCHDOG_INTERVAL_MS = 500;

/**
 * Call `onGone` once the parent process has gone: its pid no longer exists,
 * or this process was re-parented (to init or a subreaper). A client that
 * dies without closing our stdin (it was inherited by a grandchild, say)
 * would otherwise leave the server running for ever. Nothing is watched when
 * the parent is already init (pid 1): there is nothing to outlive. Returns
 * the function that stops watching; the timer never keeps the process alive.
 */
export function watchParent(
  onGone: () => void,
  options: { readonly intervalMs?: number; readonly ppid?: number } = {},
): () => void {
  const ppid = options.ppid ?? process.ppid;
  if (ppid <= 1) return () => undefined;
  const timer = setInterval(() => {
    if (process.ppid !== ppid || !alive(ppid)) {
      clearInterval(timer);
      onGone();
    }
  }, options.intervalMs ?? WATCHDOG_INTERVAL_MS);
  timer.unref();
  return () => clearInterval(timer);
}

/** Signal 0 checks existence; EPERM means it exists under another user. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
