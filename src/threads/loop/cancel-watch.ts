/**
 * The runner's cancellation, from outside: a cancel request recorded in
 * registry.db (`rye thread cancel`, any process) or the caller's abort
 * signal reaches the run's `cancel()`.
 */
import { CancelRequests, type RegistryDb } from '../store/index.js';

/** How often the owner of a thread looks for a cancel request (THREADS.md §11: 100 ms). */
export const CANCEL_POLL_MS = 100;

/**
 * Watch registry.db for a cancel request on `threadId` recorded at or after
 * `sinceMs` (older requests were meant for an earlier owner), and call
 * `onCancel(reason)` once when one appears. The timer is unref'd, so it never
 * keeps a process alive. Every owner of a running thread starts one (runThread
 * and resumeThread do), so `rye thread cancel` reaches it from any process.
 * Returns the function that stops watching.
 */
export function watchCancelRequests(
  registry: RegistryDb,
  threadId: string,
  onCancel: (reason: string) => void,
  options: { sinceMs: number; intervalMs?: number },
): () => void {
  const requests = new CancelRequests(registry.db);
  const timer = setInterval(() => {
    let reason: string | undefined;
    try {
      const request = requests.get(threadId);
      if (request !== undefined && request.requestedMs >= options.sinceMs) reason = request.reason;
    } catch {
      // A busy or closing database: look again on the next tick.
      return;
    }
    if (reason === undefined) return;
    clearInterval(timer);
    onCancel(reason);
  }, options.intervalMs ?? CANCEL_POLL_MS);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * Follow a caller's abort signal (RunThreadInput `signal`): `onCancel` is
 * called once with the abort reason as text, at once when it has already
 * aborted. Returns the function that stops following.
 */
export function followCancelSignal(
  signal: AbortSignal | undefined,
  onCancel: (reason: string) => void,
): () => void {
  if (signal === undefined) return () => undefined;
  const listener = (): void => onCancel(reasonOf(signal.reason));
  if (signal.aborted) listener();
  else signal.addEventListener('abort', listener, { once: true });
  return () => signal.removeEventListener('abort', listener);
}

function reasonOf(reason: unknown): string {
  if (typeof reason === 'string' && reason !== '') return reason;
  if (reason instanceof Error && reason.message !== '') return reason.message;
  return 'cancelled by its caller';
}
