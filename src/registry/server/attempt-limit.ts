import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context, MiddlewareHandler } from 'hono';
import { RyeError } from '../../errors/index.js';

const WINDOW_MS = 60_000;
/** Past this many tracked addresses, expired windows are swept before adding one. */
const SWEEP_AT = 10_000;

/**
 * Count sign-up and log-in attempts per client address in fixed one-minute
 * windows: each attempt costs the server an scrypt, and a password guesser
 * should meet a wall, not a CPU. In memory, per instance.
 */
export class AttemptLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(
    private readonly perMinute: number,
    private readonly now: () => Date,
  ) {}

  /**
   * Record one attempt from `address`.
   *
   * @throws RyeError REGISTRY_RATE_LIMITED (details.retryAfterSeconds) past the limit.
   */
  take(address: string): void {
    const now = this.now().getTime();
    let window = this.windows.get(address);
    if (window === undefined || now - window.start >= WINDOW_MS) {
      if (window === undefined && this.windows.size >= SWEEP_AT) this.sweep(now);
      window = { start: now, count: 0 };
      this.windows.set(address, window);
    }
    window.count += 1;
    if (window.count > this.perMinute) {
      const retryAfterSeconds = Math.max(1, Math.ceil((window.start + WINDOW_MS - now) / 1000));
      throw new RyeError(
        'REGISTRY_RATE_LIMITED',
        `Cannot accept more sign-up or log-in attempts from this address: the limit is ${this.perMinute} a minute; retry in ${retryAfterSeconds} s`,
        { retryAfterSeconds },
      );
    }
  }

  private sweep(now: number): void {
    for (const [address, window] of this.windows) {
      if (now - window.start >= WINDOW_MS) this.windows.delete(address);
    }
  }
}

/** Middleware charging one attempt to the caller's address; 429 with `retry-after` past the limit. */
export function limitAttempts(limiter: AttemptLimiter): MiddlewareHandler {
  return async (c, next) => {
    try {
      limiter.take(addressOf(c));
    } catch (error) {
      const seconds = (error as RyeError).details?.['retryAfterSeconds'];
      if (typeof seconds === 'number') c.header('retry-after', String(seconds));
      throw error;
    }
    await next();
  };
}

/** The peer address; requests made in process (`app.request()`) share one bucket. */
function addressOf(c: Context): string {
  try {
    return getConnInfo(c).remote.address ?? 'unknown';
  } catch {
    return 'in-process';
  }
}
