// Shared helpers for the benchmarks: timing loops and the one-line JSON report.
import { performance } from 'node:perf_hooks';

/** Print one result line: {"name", "value", "unit", ...extra}. */
export function report(name, value, unit, extra = {}) {
  console.log(JSON.stringify({ name, value: Number(value.toPrecision(6)), unit, ...extra }));
}

/** Run `fn` over `items` repeatedly for at least `minMs`; returns items per second. */
export function throughput(items, fn, minMs = 1500) {
  for (const item of items) fn(item); // warm-up: JIT and caches
  let done = 0;
  const start = performance.now();
  let elapsed = 0;
  do {
    for (const item of items) fn(item);
    done += items.length;
    elapsed = performance.now() - start;
  } while (elapsed < minMs);
  return (done / elapsed) * 1000;
}

/** Median of an array of numbers. */
export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Like throughput, for an async function over the whole batch; returns items per second. */
export async function throughputAsync(items, fn, minMs = 1500) {
  await fn(items); // warm-up
  let done = 0;
  const start = performance.now();
  let elapsed = 0;
  do {
    await fn(items);
    done += items.length;
    elapsed = performance.now() - start;
  } while (elapsed < minMs);
  return (done / elapsed) * 1000;
}
