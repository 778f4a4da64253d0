import { isRyeError } from '../../errors/index.js';
import { responseInvalid } from './normalise.js';
import { classifyFailure, type WireFailure } from './provider-errors.js';
import { guardRequest } from './request-guard.js';
import type { ProviderResponse, SendOptions } from './types.js';

/** Folds a provider's stream events into one response. */
export interface StreamFold<E> {
  add(event: E): void;
  readonly finished: boolean;
  result(): ProviderResponse;
}

/**
 * One streamed request, the same for every family: open the SDK's stream under
 * the request guard (caller signal and deadline, `maxRetries: 0`), fold its
 * events, and turn every way it can fail into the shared classification: an
 * aborted stream the SDK ended quietly, a stream event that is not JSON
 * (PROVIDER_RESPONSE_INVALID), and the SDK's own errors through `wireFailure`.
 *
 * @throws RyeError the codes of classifyFailure and responseInvalid
 */
export async function sendStreamed<E>(
  provider: string,
  options: SendOptions,
  fold: StreamFold<E>,
  open: (request: {
    signal: AbortSignal;
    timeout: number;
    maxRetries: 0;
  }) => Promise<AsyncIterable<E>>,
  wireFailure: (error: unknown) => WireFailure,
): Promise<ProviderResponse> {
  const guard = guardRequest(provider, options);
  try {
    const stream = await open({ signal: guard.signal, timeout: guard.timeoutMs, maxRetries: 0 });
    for await (const event of stream) fold.add(event);
    // The SDK ends a stream quietly when it is aborted: say why it stopped short.
    if (!fold.finished && (guard.callerAborted() || guard.deadlinePassed()))
      throw classifyFailure(provider, { kind: 'abort', message: 'aborted' }, guard.cause());
    return fold.result();
  } catch (error) {
    if (isRyeError(error)) throw error;
    // A stream event whose data is not JSON: the response broke its format.
    if (error instanceof SyntaxError) throw responseInvalid(provider, 'a stream event is not JSON');
    const now = (options.now ?? Date.now)();
    throw classifyFailure(provider, wireFailure(error), guard.cause(), now);
  } finally {
    guard.dispose();
  }
}
