/**
 * One request's abort wiring: the caller's signal and the absolute deadline
 * become one signal for the SDK. The SDKs' own `timeout` stops at the
 * response headers, so a stream that outlives the deadline needs this timer;
 * and they end a stream silently on abort, so the adapter asks here why.
 */
import { RyeError } from '../../errors/index.js';
import type { AbortCause } from './provider-errors.js';
import type { SendOptions } from './types.js';

/** The timeout when no deadline is given (the SDKs' default). */
export const DEFAULT_TIMEOUT_MS = 10 * 60 * 1000;
const MAX_TIMER_MS = 2 ** 31 - 1;

export interface RequestGuard {
  readonly signal: AbortSignal;
  /** What is left of the deadline, for the SDK's `timeout` option. */
  readonly timeoutMs: number;
  callerAborted(): boolean;
  deadlinePassed(): boolean;
  /** Both, for classifying a failure. */
  cause(): AbortCause;
  /** Clear the timer and listeners; call once the request settled. */
  dispose(): void;
}

/**
 * Start guarding one request.
 * @throws RyeError PROVIDER_REQUEST_ABORTED when already aborted or past the deadline (nothing is sent)
 */
export function guardRequest(provider: string, options: SendOptions): RequestGuard {
  const now = options.now ?? Date.now;
  const caller = options.signal;
  const deadline = options.deadline;
  if (caller?.aborted === true) throw aborted(provider, 'signal');
  const remaining = deadline === undefined ? DEFAULT_TIMEOUT_MS : deadline - now();
  if (remaining <= 0) throw aborted(provider, 'deadline');
  const controller = new AbortController();
  let deadlineFired = false;
  const onAbort = (): void => controller.abort(caller?.reason);
  caller?.addEventListener('abort', onAbort, { once: true });
  const timer =
    deadline === undefined
      ? undefined
      : setTimeout(
          () => {
            deadlineFired = true;
            controller.abort(new Error('deadline passed'));
          },
          Math.min(remaining, MAX_TIMER_MS),
        );
  const callerAborted = (): boolean => caller?.aborted === true;
  const deadlinePassed = (): boolean =>
    deadlineFired || (deadline !== undefined && now() >= deadline);
  return {
    signal: controller.signal,
    timeoutMs: Math.max(1, Math.min(remaining, MAX_TIMER_MS)),
    callerAborted,
    deadlinePassed,
    cause: () => ({ callerAborted: callerAborted(), deadlinePassed: deadlinePassed() }),
    dispose: () => {
      if (timer !== undefined) clearTimeout(timer);
      caller?.removeEventListener('abort', onAbort);
    },
  };
}

function aborted(provider: string, reason: 'signal' | 'deadline'): RyeError {
  return new RyeError(
    'PROVIDER_REQUEST_ABORTED',
    `Cannot send the request to provider ${provider}: ${reason === 'signal' ? 'it was aborted' : 'the deadline passed'}`,
    { provider, reason, retryable: false },
  );
}
