import { setImmediate } from 'node:timers/promises';

/**
 * Let the event loop run once (I/O callbacks, other requests) before the next
 * costly synchronous step of a push: a push is then a few bounded slices of
 * the request thread, never one long one, and `/health` stays prompt.
 */
export function yieldToLoop(): Promise<void> {
  return setImmediate();
}
