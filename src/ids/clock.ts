import { randomBytes } from 'node:crypto';

/**
 * Where thread code reads the time: injected so tests and the task-manager
 * fixture produce byte-identical transcripts and ids.
 */
export interface Clock {
  /** Milliseconds since the Unix epoch, a non-negative integer. */
  now(): number;
}

/** `n` random bytes; injected so ids are reproducible in tests. */
export type RandomSource = (n: number) => Uint8Array;

/** The wall clock. */
export const systemClock: Clock = { now: () => Date.now() };

/** Cryptographically strong random bytes from `node:crypto`. */
export const systemRandom: RandomSource = (n) => randomBytes(n);

/**
 * A clock that starts at `startMs` and moves only when told (or by `stepMs` on
 * each read), for tests and benchmarks.
 */
export function fixedClock(
  startMs: number,
  stepMs = 0,
): Clock & { advance(ms: number): void; set(ms: number): void } {
  let current = startMs;
  return {
    now() {
      const value = current;
      current += stepMs;
      return value;
    },
    advance(ms) {
      current += ms;
    },
    set(ms) {
      current = ms;
    },
  };
}
