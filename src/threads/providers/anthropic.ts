/**
 * The `anthropic_messages` adapter on the official SDK. One `send` is one
 * streamed `POST /v1/messages`: the SDK never retries (`maxRetries: 0`; each
 * retry is the harness's own budgeted attempt), the timeout is what is left of
 * the deadline, and the key travels in the header the descriptor names and no
 * other. SDK 1.x sends `apiKey` as `authorization: Bearer`; for `x-api-key`
 * the key goes in `defaultHeaders` with `authorization` omitted (the SDK's own
 * pattern for a hand-set key). An explicit `apiKey` also keeps the SDK from
 * reading `ANTHROPIC_API_KEY`, `ANTHROPIC_AUTH_TOKEN` or its credential files.
 */
import Anthropic, {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
} from '@anthropic-ai/sdk';
import { AnthropicStreamFold } from './anthropic-stream.js';
import { toAnthropicBody } from './anthropic-wire.js';
import { STDERR_LOGGER, type ClientConfig } from './client-config.js';
import { errorText, type WireFailure } from './provider-errors.js';
import { DEFAULT_TIMEOUT_MS } from './request-guard.js';
import { sendStreamed } from './streamed-send.js';
import type { ProviderClient, ProviderRequest, ProviderResponse, SendOptions } from './types.js';

/** Build the adapter for one resolved endpoint and key. */
export function createAnthropicClient(config: ClientConfig): ProviderClient {
  const apiKeyHeader = config.auth.header === 'x-api-key';
  const sdk = new Anthropic({
    baseURL: config.baseUrl,
    apiKey: config.credential,
    authToken: null,
    maxRetries: 0,
    timeout: DEFAULT_TIMEOUT_MS,
    defaultHeaders: apiKeyHeader
      ? { ...config.headers, 'x-api-key': config.credential, authorization: null }
      : { ...config.headers },
    logger: STDERR_LOGGER,
    ...(config.fetch === undefined ? {} : { fetch: config.fetch }),
  });
  return {
    family: 'anthropic_messages',
    send: (request, options = {}) => send(sdk, config.provider, request, options),
  };
}

async function send(
  sdk: Anthropic,
  provider: string,
  request: ProviderRequest,
  options: SendOptions,
): Promise<ProviderResponse> {
  return sendStreamed(
    provider,
    options,
    new AnthropicStreamFold(provider, options.onProgress),
    (requestOptions) => sdk.messages.create(toAnthropicBody(request), requestOptions),
    wireFailure,
  );
}

/** What an SDK or network error says, in the shared shape. */
function wireFailure(error: unknown): WireFailure {
  if (error instanceof APIUserAbortError) return { kind: 'abort', message: error.message };
  if (error instanceof APIConnectionTimeoutError)
    return { kind: 'timeout', message: error.message };
  if (error instanceof APIConnectionError) return { kind: 'connection', message: errorText(error) };
  if (error instanceof APIError) {
    const body = error.error as { error?: { type?: unknown } } | undefined;
    const type = error.type ?? body?.error?.type;
    return {
      kind: error.status === undefined ? 'stream_error' : 'status',
      ...(error.status === undefined ? {} : { status: error.status }),
      ...(typeof type === 'string' ? { errorType: type } : {}),
      ...(error.errorCode === null ? {} : { errorCode: error.errorCode }),
      message: error.apiMessage ?? error.message,
      ...(error.headers === undefined ? {} : { headers: error.headers }),
      ...(typeof error.requestID === 'string' ? { requestId: error.requestID } : {}),
    };
  }
  if (error instanceof Error && error.name === 'AbortError')
    return { kind: 'abort', message: error.message };
  // A reset mid-body surfaces from fetch as a plain TypeError ("terminated").
  return { kind: 'connection', message: error instanceof Error ? errorText(error) : String(error) };
}
