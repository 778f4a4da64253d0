/**
 * One classification of provider failures for both families, so the retry
 * loop decides on codes, never on SDK classes: auth (401/403) fails at once,
 * quota and billing are permanent, 429/5xx/529/resets are transient (with the
 * provider's `retry-after`), other 4xx are the request's own fault.
 */
import { RyeError } from '../../errors/index.js';
import { escapeControl } from '../../platform/index.js';

/** What an adapter learnt from an SDK error, before classification. */
export interface WireFailure {
  readonly kind: 'status' | 'stream_error' | 'connection' | 'timeout' | 'abort';
  /** The HTTP status (absent for errors inside a 200 stream and for network failures). */
  readonly status?: number;
  /** `error.type` from the body (Anthropic: `rate_limit_error`; OpenAI: `insufficient_quota`). */
  readonly errorType?: string;
  /** A finer code (Anthropic `error.details.error_code`, OpenAI `error.code`). */
  readonly errorCode?: string;
  readonly message: string;
  readonly headers?: Headers;
  readonly requestId?: string;
}

/** Why an abort happened, as the adapter knows it. */
export interface AbortCause {
  readonly callerAborted: boolean;
  readonly deadlinePassed: boolean;
}

const AUTH_TYPES = new Set(['authentication_error', 'permission_error', 'invalid_api_key']);
/** Quota and billing: retrying cannot help (OpenAI and Anthropic error codes). */
const QUOTA_CODES = new Set([
  'billing_error',
  'insufficient_quota',
  'credit_balance_exhausted',
  'organization_spend_limit_exceeded',
  'project_spend_limit_exceeded',
  'organization_usage_limit_exceeded',
  'enforced_spend_limit_reached',
  'billing_hard_limit_reached',
]);
/** Anthropic reports an exhausted balance or spend limit as a 400 with this wording. */
const QUOTA_MESSAGE = /credit balance is too low|spend limit|billing/i;
const REJECTED_TYPES = new Set(['invalid_request_error', 'not_found_error', 'request_too_large']);
const TRANSIENT_STATUS = new Set([408, 409, 425, 429]);
const MAX_MESSAGE = 500;

/**
 * The RyeError for a failed request. `details.retryable` is true only for
 * PROVIDER_REQUEST_FAILED from a transient cause; `details.retry_after_ms` is
 * the provider's own wait, when it sent one.
 */
export function classifyFailure(
  provider: string,
  failure: WireFailure,
  abort: AbortCause,
  now: number = Date.now(),
): RyeError {
  const base = {
    provider,
    ...(failure.status === undefined ? {} : { status: failure.status }),
    ...(failure.errorType === undefined ? {} : { error_type: failure.errorType }),
    ...(failure.errorCode === undefined ? {} : { error_code: failure.errorCode }),
    ...(failure.requestId === undefined ? {} : { request_id: failure.requestId }),
  };
  const said = shorten(failure.message);
  if (failure.kind === 'abort' || (failure.kind === 'timeout' && abort.deadlinePassed)) {
    const reason = abort.callerAborted ? 'signal' : 'deadline';
    return new RyeError(
      'PROVIDER_REQUEST_ABORTED',
      `Cannot finish the request to provider ${provider}: ${reason === 'signal' ? 'it was aborted' : 'the deadline passed'}`,
      { ...base, reason, retryable: false },
    );
  }
  if (failure.kind === 'connection' || failure.kind === 'timeout') {
    return transient(
      provider,
      `${failure.kind === 'timeout' ? 'timed out' : 'connection failed'}: ${said}`,
      base,
    );
  }
  const type = failure.errorType ?? '';
  const code = failure.errorCode ?? '';
  const status = failure.status;
  if (
    QUOTA_CODES.has(code) ||
    QUOTA_CODES.has(type) ||
    status === 402 ||
    (status === 400 && QUOTA_MESSAGE.test(said))
  ) {
    return new RyeError(
      'PROVIDER_QUOTA_EXCEEDED',
      `Cannot use provider ${provider}: its quota or billing limit is reached (${said})`,
      { ...base, retryable: false },
    );
  }
  if (status === 401 || status === 403 || AUTH_TYPES.has(type) || AUTH_TYPES.has(code)) {
    return new RyeError(
      'PROVIDER_AUTH_FAILED',
      `Cannot use provider ${provider}: it refused the credential (${said})`,
      { ...base, retryable: false },
    );
  }
  const isTransient =
    status === undefined
      ? !REJECTED_TYPES.has(type)
      : status >= 500 || TRANSIENT_STATUS.has(status);
  if (isTransient) {
    const wait = failure.headers === undefined ? undefined : retryAfterMs(failure.headers, now);
    return transient(provider, said, {
      ...base,
      ...(wait === undefined ? {} : { retry_after_ms: wait }),
    });
  }
  return new RyeError(
    'PROVIDER_REQUEST_REJECTED',
    `Cannot use provider ${provider}: it rejected the request (${said})`,
    { ...base, retryable: false },
  );
}

function transient(provider: string, said: string, details: Record<string, unknown>): RyeError {
  return new RyeError(
    'PROVIDER_REQUEST_FAILED',
    `Cannot get a response from provider ${provider}: ${said}`,
    { ...details, retryable: true },
  );
}

/**
 * The wait a response asks for: `retry-after-ms`, else `retry-after` as
 * seconds or an HTTP date. Undefined when absent, unparsable or negative.
 */
export function retryAfterMs(headers: Headers, now: number): number | undefined {
  const ms = headers.get('retry-after-ms');
  if (ms !== null && /^\d+(\.\d+)?$/.test(ms.trim())) return Math.ceil(Number(ms));
  const value = headers.get('retry-after');
  if (value === null) return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.ceil(Number(trimmed) * 1000);
  // Only an HTTP date (`Wed, 21 Oct 2015 07:28:00 GMT`): Date.parse takes "-3" as a year.
  if (!/^[A-Za-z]{3}, \d{2} [A-Za-z]{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/.test(trimmed))
    return undefined;
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

/** An error's message with its cause's (fetch hides the socket error in `cause`). */
export function errorText(error: Error): string {
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${error.message}${cause}`;
}

function shorten(text: string): string {
  // Provider text reaches terminals and logs: no control or bidi characters.
  const flat = escapeControl(text);
  return flat.length > MAX_MESSAGE ? `${flat.slice(0, MAX_MESSAGE)}…` : flat;
}
