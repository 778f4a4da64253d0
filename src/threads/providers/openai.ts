/**
 * The `openai_chat` adapter on the official SDK (openai 6, which runs on
 * Node 20), for OpenAI and OpenAI-compatible servers (Ollama, vLLM). One
 * `send` is one streamed `POST <base>/chat/completions` with
 * `stream_options.include_usage`; the SDK never retries, the timeout is what
 * is left of the deadline, and the key goes as `authorization: Bearer` (the
 * SDK's `apiKey`). Organisation and project are pinned to none, so
 * `OPENAI_ORG_ID` / `OPENAI_PROJECT_ID` add no headers.
 */
import OpenAI, {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
} from 'openai';
import { STDERR_LOGGER, type ClientConfig } from './client-config.js';
import { OpenAIStreamFold } from './openai-stream.js';
import { toOpenAIBody } from './openai-wire.js';
import { errorText, type WireFailure } from './provider-errors.js';
import { DEFAULT_TIMEOUT_MS } from './request-guard.js';
import { sendStreamed } from './streamed-send.js';
import type { ProviderClient, ProviderRequest, ProviderResponse, SendOptions } from './types.js';

/** Build the adapter for one resolved endpoint and key. */
export function createOpenAIClient(config: ClientConfig): ProviderClient {
  const sdk = new OpenAI({
    baseURL: config.baseUrl,
    apiKey: config.credential,
    adminAPIKey: null,
    organization: null,
    project: null,
    webhookSecret: null,
    maxRetries: 0,
    timeout: DEFAULT_TIMEOUT_MS,
    defaultHeaders: { ...config.headers },
    logger: STDERR_LOGGER,
    ...(config.fetch === undefined ? {} : { fetch: config.fetch }),
  });
  const field = config.maxTokensField ?? 'max_completion_tokens';
  return {
    family: 'openai_chat',
    send: (request, options = {}) => send(sdk, config.provider, field, request, options),
  };
}

async function send(
  sdk: OpenAI,
  provider: string,
  field: 'max_completion_tokens' | 'max_tokens',
  request: ProviderRequest,
  options: SendOptions,
): Promise<ProviderResponse> {
  return sendStreamed(
    provider,
    options,
    new OpenAIStreamFold(provider, options.onProgress),
    (requestOptions) => sdk.chat.completions.create(toOpenAIBody(request, field), requestOptions),
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
    // The SDK keeps the body's inner `error` object: {message, type, param, code}.
    const body = (error.error ?? {}) as { message?: unknown; type?: unknown; code?: unknown };
    const message = typeof body.message === 'string' ? body.message : error.message;
    return {
      kind: error.status === undefined ? 'stream_error' : 'status',
      ...(error.status === undefined ? {} : { status: error.status }),
      ...(typeof body.type === 'string' ? { errorType: body.type } : {}),
      ...(typeof body.code === 'string' ? { errorCode: body.code } : {}),
      message,
      ...(error.headers === undefined ? {} : { headers: error.headers }),
      ...(typeof error.requestID === 'string' ? { requestId: error.requestID } : {}),
    };
  }
  if (error instanceof Error && error.name === 'AbortError')
    return { kind: 'abort', message: error.message };
  // A reset mid-body surfaces from fetch as a plain TypeError ("terminated").
  return { kind: 'connection', message: error instanceof Error ? errorText(error) : String(error) };
}
