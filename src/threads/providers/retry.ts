/**
 * The harness's retry loop around one provider turn (THREADS.md §5). Only
 * failures an adapter marked `retryable` (429, 5xx, 529, resets, a garbled
 * stream) are tried again, with bounded exponential backoff, or exactly the
 * provider's `retry-after` when it sent one (a wait over the cap stops at
 * once instead of hammering). Auth, quota and rejected requests fail at once.
 * `beforeAttempt` runs before every attempt, the first included, so the
 * harness re-checks budget, tokens and deadline each time and can stop.
 */
import { RyeError, isRyeError } from '../../errors/index.js';

export interface RetryPolicy {
  /** Attempts in all, the first included (THREADS.md §5: 3 consecutive failures stop a thread). */
  readonly maxAttempts: number;
  /** Backoff before retry n is up to `baseDelayMs × 2^(n-1)`, at most `maxDelayMs`. */
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  /** The longest `retry-after` honoured; a provider asking for more ends the loop. */
  readonly maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 3,
  baseDelayMs: 1000,
  maxDelayMs: 30_000,
  maxRetryAfterMs: 60_000,
};

export interface RetryOptions {
  readonly policy?: Partial<RetryPolicy>;
  /** Runs before each attempt (1-based); throwing stops the loop with that error. */
  readonly beforeAttempt?: (attempt: number) => void | Promise<void>;
  /** Injectable wait (tests); default: a timer that the signal cancels. */
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Injectable jitter source in [0, 1); default Math.random. */
  readonly random?: () => number;
  /** Cancels a wait between attempts. */
  readonly signal?: AbortSignal;
  readonly onRetry?: (info: { attempt: number; delayMs: number; error: RyeError }) => void;
}

/**
 * Run `attempt` until it succeeds, fails permanently, or the bound is reached.
 *
 * @throws RyeError whatever `beforeAttempt` throws; a non-retryable error
 *   as it came (PROVIDER_AUTH_FAILED, PROVIDER_QUOTA_EXCEEDED,
 *   PROVIDER_REQUEST_REJECTED, PROVIDER_REQUEST_ABORTED, …);
 *   PROVIDER_REQUEST_FAILED after the last attempt or for a `retry-after`
 *   over the cap (`details: {attempts, last}`); PROVIDER_REQUEST_ABORTED when
 *   the signal ends a wait
 */
export async function withProviderRetries<T>(
  attempt: (n: number) => Promise<T>,
  options: RetryOptions = {},
): Promise<T> {
  const policy = { ...DEFAULT_RETRY_POLICY, ...options.policy };
  const sleep = options.sleep ?? abortableSleep;
  const random = options.random ?? Math.random;
  for (let n = 1; ; n++) {
    await options.beforeAttempt?.(n);
    let error: RyeError;
    try {
      return await attempt(n);
    } catch (thrown) {
      if (!isRyeError(thrown) || thrown.details['retryable'] !== true) throw thrown;
      error = thrown;
    }
    const asked = error.details['retry_after_ms'];
    const retryAfter = typeof asked === 'number' && Number.isFinite(asked) ? asked : undefined;
    if (n >= policy.maxAttempts) throw exhausted(error, n, `after ${n} attempts`);
    if (retryAfter !== undefined && retryAfter > policy.maxRetryAfterMs) {
      const why = `it asks to wait ${Math.ceil(retryAfter / 1000)} s, over the ${Math.ceil(policy.maxRetryAfterMs / 1000)} s cap`;
      throw exhausted(error, n, why);
    }
    const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (n - 1));
    // Half fixed, half random: spread retries from parallel threads, never wait 0.
    const delayMs = retryAfter ?? Math.round(ceiling / 2 + random() * (ceiling / 2));
    options.onRetry?.({ attempt: n, delayMs, error });
    try {
      await sleep(delayMs, options.signal);
    } catch (cause) {
      throw new RyeError(
        'PROVIDER_REQUEST_ABORTED',
        `Cannot retry the request to provider ${String(error.details['provider'])}: the wait was aborted`,
        { provider: error.details['provider'], reason: 'signal', attempts: n, retryable: false },
        { cause },
      );
    }
  }
}

function exhausted(last: RyeError, attempts: number, why: string): RyeError {
  const provider = String(last.details['provider'] ?? 'unknown');
  return new RyeError(
    'PROVIDER_REQUEST_FAILED',
    `Cannot get a response from provider ${provider} (${why}): ${last.message}`,
    {
      provider,
      attempts,
      retryable: false,
      last: { code: last.code, ...last.details },
    },
    { cause: last },
  );
}

/** setTimeout as a promise that rejects when the signal aborts. */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted === true) {
      reject(signal.reason ?? new Error('aborted'));
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason ?? new Error('aborted'));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
