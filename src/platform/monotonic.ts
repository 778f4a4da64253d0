/**
 * Milliseconds on a monotonic clock, for measuring how long something took:
 * what `performance.now()` gives, without loading `node:perf_hooks` (ten
 * modules, ~1.2 ms of every `rye execute`'s start-up). Only differences mean
 * anything; the origin is arbitrary.
 */
export function monotonicMs(): number {
  const [seconds, nanoseconds] = process.hrtime();
  return seconds * 1e3 + nanoseconds / 1e6;
}
