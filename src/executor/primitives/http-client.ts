/**
 * The http_client primitive: one HTTP request through Node's global `fetch`,
 * with auth, a per-attempt timeout, retries on transport failures only and a
 * capped response body.
 */
import { StringDecoder } from 'node:string_decoder';
import { setTimeout as delay } from 'node:timers/promises';
import { RyeError } from '../../errors/index.js';
import { messageOf, monotonicMs } from '../../platform/index.js';
import type { HttpRequest, HttpResult } from '../types.js';

/** Longest wait between two attempts, whatever the backoff computes. */
export const MAX_BACKOFF_MS = 30_000;

/** Transport failures worth another attempt: the request may never have reached a server. */
const RETRYABLE_CODES = new Set(
  (
    'ECONNREFUSED ECONNRESET ECONNABORTED ENOTFOUND EAI_AGAIN ETIMEDOUT EHOSTUNREACH ENETUNREACH ' +
    'EPIPE UND_ERR_CONNECT_TIMEOUT UND_ERR_HEADERS_TIMEOUT UND_ERR_BODY_TIMEOUT UND_ERR_SOCKET'
  ).split(' '),
);

/** Header names whose values are treated as secrets in error text. */
const SECRET_HEADER = /authorization|api[-_]?key|token|secret|cookie|password/i;

/**
 * Send one HTTP request and return the response as a result.
 *
 * Guarantees:
 * - Only `http:` and `https:` URLs are fetched; redirects are not followed
 *   (a 3xx is a result), so credentials never reach a host the tool did not name.
 * - A non-null body is sent as JSON, with `content-type: application/json`
 *   unless a content-type header is given; `auth` overrides a same-named header.
 * - Each attempt has its own `timeoutMs` (headers and body). Only transport
 *   failures (ECONNREFUSED, ECONNRESET, ENOTFOUND, … and timeouts) are retried
 *   (a timed-out POST may have reached the server: tools that care set maxAttempts 1),
 *   up to `retry.maxAttempts` attempts in all; the k-th retry waits
 *   `baseDelayMs·2^(k-1)` (exponential) or `baseDelayMs·k` (linear), at most
 *   {@link MAX_BACKOFF_MS}. Any HTTP status, 4xx/5xx included, is a result.
 * - The body keeps at most `maxResponseBytes` bytes (`truncated`; the rest is
 *   not downloaded), cut on a UTF-8 character boundary; it is parsed when the
 *   content-type is JSON and the body complete, else returned as text.
 *   Header names are lower-case; repeated headers are joined with `, `.
 * - Auth tokens and secret-looking header values never appear in error
 *   messages or details.
 *
 * @throws RyeError EXECUTOR_CONFIG_INVALID — bad URL or scheme, credentials in
 *   the URL, a body on GET/HEAD, a body that is not JSON-serialisable, invalid
 *   headers, or bad limits.
 * @throws RyeError HTTP_REQUEST_FAILED — no response after the last attempt, or
 *   a failure that is not worth retrying; details `{url, attempts, lastError}`.
 */
export async function runHttpRequest(request: HttpRequest): Promise<HttpResult> {
  const secrets = secretsOf(request);
  const url = parseUrl(request, secrets);
  const where = redact(url.href, secrets);
  const at = `${request.method} ${where}`;
  checkLimits(request, at);
  const init = buildInit(request, at);
  const started = monotonicMs();
  let lastError = '';
  for (let attempt = 1; attempt <= request.retry.maxAttempts; attempt++) {
    if (attempt > 1) await delay(backoffMs(request.retry, attempt - 1));
    if (aborted(request)) throw cancelled(at);
    try {
      const timeout = AbortSignal.timeout(request.timeoutMs);
      const signal =
        request.signal === undefined ? timeout : AbortSignal.any([timeout, request.signal]);
      const response = await fetch(url, { ...init, signal });
      const { body, truncated } = await readBody(response, request.maxResponseBytes);
      return {
        status: response.status,
        headers: headersOf(response),
        body,
        attempts: attempt,
        durationMs: monotonicMs() - started,
        truncated,
      };
    } catch (error) {
      if (aborted(request)) throw cancelled(at);
      lastError = redact(describe(error, request.timeoutMs), secrets);
      if (!isRetryable(error)) throw requestFailed(at, where, attempt, lastError, error);
    }
  }
  throw requestFailed(at, where, request.retry.maxAttempts, lastError, undefined);
}

// A function, not an inline test: the signal can abort while an attempt is in flight.
function aborted(request: HttpRequest): boolean {
  return request.signal?.aborted === true;
}

function cancelled(at: string): RyeError {
  return new RyeError('EXECUTE_CANCELLED', `${at}: the call was cancelled`);
}

function parseUrl(request: HttpRequest, secrets: readonly string[]): URL {
  let url: URL;
  try {
    url = new URL(request.url);
  } catch {
    // No cause: the parser's error repeats the input, which may hold a key.
    throw configInvalid(`${redact(request.url, secrets)} is not a valid URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw configInvalid(`scheme ${url.protocol} is not allowed (only http: and https:)`);
  }
  if (url.username !== '' || url.password !== '') {
    throw configInvalid('the URL carries credentials (user:password@); use auth instead');
  }
  return url;
}

function checkLimits(request: HttpRequest, at: string): void {
  const { retry, timeoutMs, maxResponseBytes: cap } = request;
  const rules: [boolean, string][] = [
    [Number.isSafeInteger(retry.maxAttempts) && retry.maxAttempts >= 1, 'maxAttempts must be ≥ 1'],
    [Number.isFinite(retry.baseDelayMs) && retry.baseDelayMs >= 0, 'baseDelayMs must be ≥ 0'],
    [Number.isFinite(timeoutMs) && timeoutMs > 0, 'timeout must be a positive number of ms'],
    [Number.isSafeInteger(cap) && cap >= 0, 'maxResponseBytes must be a byte count'],
  ];
  for (const [ok, why] of rules) if (!ok) throw configInvalid(`${at}: ${why}`);
}

function buildInit(request: HttpRequest, at: string): RequestInit {
  const headers = new Headers();
  const auth: [string, string][] =
    request.auth?.type === 'bearer'
      ? [['authorization', `Bearer ${request.auth.token}`]]
      : request.auth?.type === 'api_key'
        ? [[request.auth.header, request.auth.key]]
        : [];
  for (const [name, value] of [...Object.entries(request.headers), ...auth]) {
    try {
      headers.set(name, value);
    } catch {
      // Name only: Node's message quotes the value, which may be a secret.
      throw configInvalid(`${at}: header ${JSON.stringify(name)} has an invalid name or value`);
    }
  }
  const init: RequestInit = { method: request.method, headers, redirect: 'manual' };
  if (request.body === null || request.body === undefined) return init;
  if (request.method === 'GET' || request.method === 'HEAD') {
    throw configInvalid(`${at}: a ${request.method} request cannot carry a body`);
  }
  let json: string | undefined;
  try {
    json = JSON.stringify(request.body);
  } catch (error) {
    throw configInvalid(`${at}: the body is not JSON-serialisable (${messageOf(error)})`, error);
  }
  if (json === undefined) throw configInvalid(`${at}: the body is not JSON-serialisable`);
  if (!headers.has('content-type')) headers.set('content-type', 'application/json');
  return { ...init, body: json };
}

function backoffMs(retry: HttpRequest['retry'], retryNumber: number): number {
  const wait =
    retry.backoff === 'exponential'
      ? retry.baseDelayMs * 2 ** (retryNumber - 1)
      : retry.baseDelayMs * retryNumber;
  return Math.min(wait, MAX_BACKOFF_MS);
}

// Untrusted input: the server decides the size; stop downloading at the cap.
async function readBody(
  response: Response,
  cap: number,
): Promise<{ body: unknown; truncated: boolean }> {
  const chunks: Uint8Array[] = [];
  let kept = 0;
  let truncated = false;
  if (response.body !== null) {
    const reader = response.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      const room = cap - kept;
      if (value.length > room) {
        truncated = true;
        if (room > 0) chunks.push(value.subarray(0, room));
        // Closes the connection: the rest is never downloaded.
        reader.cancel().catch(() => undefined);
        break;
      }
      chunks.push(value);
      kept += value.length;
    }
  }
  const decoder = new StringDecoder('utf8');
  const bytes = Buffer.concat(chunks);
  // write() alone holds back a character cut in half by the cap.
  const text = truncated ? decoder.write(bytes) : decoder.end(bytes);
  if (truncated || !isJson(response.headers.get('content-type'))) return { body: text, truncated };
  try {
    return { body: JSON.parse(text) as unknown, truncated };
  } catch {
    return { body: text, truncated };
  }
}

function isJson(contentType: string | null): boolean {
  const essence = contentType?.split(';')[0]?.trim().toLowerCase() ?? '';
  return essence === 'application/json' || essence.endsWith('+json');
}

function headersOf(response: Response): Record<string, string> {
  const merged = new Map<string, string>();
  for (const [name, value] of response.headers) {
    const previous = merged.get(name);
    merged.set(name, previous === undefined ? value : `${previous}, ${value}`);
  }
  // fromEntries defines own properties, so a `__proto__` header stays a plain key.
  return Object.fromEntries(merged);
}

function isTimeout(error: unknown): boolean {
  // AbortSignal.timeout() rejects with a DOMException named TimeoutError.
  return (
    typeof error === 'object' && error !== null && 'name' in error && error.name === 'TimeoutError'
  );
}

function isRetryable(error: unknown): boolean {
  return isTimeout(error) || codesOf(error).some((code) => RETRYABLE_CODES.has(code));
}

/** Error codes along the cause chain (fetch wraps socket errors in `TypeError: fetch failed`). */
function codesOf(error: unknown, depth = 0): string[] {
  if (!(error instanceof Error) || depth > 5) return [];
  const own = (error as NodeJS.ErrnoException).code;
  const nested = error instanceof AggregateError ? (error.errors as unknown[]) : [];
  return [
    ...(typeof own === 'string' ? [own] : []),
    ...codesOf(error.cause, depth + 1),
    ...nested.flatMap((inner) => codesOf(inner, depth + 1)),
  ];
}

function describe(error: unknown, timeoutMs: number): string {
  if (isTimeout(error)) return `timed out after ${timeoutMs} ms`;
  const cause = error instanceof Error ? error.cause : undefined;
  return cause instanceof Error ? `${messageOf(error)}: ${messageOf(cause)}` : messageOf(error);
}

function secretsOf(request: HttpRequest): string[] {
  const secrets = Object.entries(request.headers)
    .filter(([name]) => SECRET_HEADER.test(name))
    .map(([, value]) => value);
  if (request.auth?.type === 'bearer') secrets.push(request.auth.token);
  if (request.auth?.type === 'api_key') secrets.push(request.auth.key);
  return secrets.filter((secret) => secret.length > 0);
}

function redact(text: string, secrets: readonly string[]): string {
  return secrets.reduce((out, secret) => out.split(secret).join('[redacted]'), text);
}

function configInvalid(why: string, cause?: unknown): RyeError {
  return new RyeError('EXECUTOR_CONFIG_INVALID', `Cannot send HTTP request: ${why}`, {}, { cause });
}

function requestFailed(
  at: string,
  url: string,
  attempts: number,
  lastError: string,
  cause: unknown,
): RyeError {
  const tries = attempts === 1 ? '1 attempt' : `${attempts} attempts`;
  return new RyeError(
    'HTTP_REQUEST_FAILED',
    `Cannot ${at}: ${lastError} (${tries})`,
    { url, attempts, lastError },
    { cause },
  );
}
