import { ERROR_CODES, RyeError, type ErrorCode } from '../../errors/index.js';
import { isObject } from './user-files.js';
import { printable } from '../../platform/index.js';

/** Largest JSON answer read: an 8 MiB item escaped in JSON, or a large bundle's manifest and file list. */
export const MAX_JSON_ANSWER_BYTES = 64 * 1024 * 1024;
/** Default time for one call, answer included. */
export const DEFAULT_TIMEOUT_MS = 30_000;
/** Transfers in flight at once: enough to hide latency, few enough to be polite to a server. */
export const TRANSFER_CONCURRENCY = 8;

/** What `fetch` is; tests may pass another. */
export type FetchFn = typeof fetch;

export interface HttpRequest {
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'HEAD';
  /** Path with its leading `/`, segments already encoded. */
  readonly path: string;
  readonly query?: Readonly<Record<string, string | undefined>>;
  readonly json?: unknown;
  readonly bytes?: Uint8Array;
  readonly token?: string;
  /** The body carries a password (sign-up, log-in): it waits for the registry key check like a token. */
  readonly credentials?: boolean;
  /** Largest answer body read (default {@link MAX_JSON_ANSWER_BYTES}). */
  readonly maxBytes?: number;
  readonly timeoutMs?: number;
}

export interface HttpAnswer {
  readonly status: number;
  readonly body: Buffer;
}

/**
 * Runs before a request leaves; it may refuse it by throwing. A session
 * installs one that checks the registry key against the pin before any
 * credential is sent (see `session.ts`).
 */
export type RequestGuard = (request: HttpRequest) => Promise<void>;

/**
 * The registry's HTTP transport: one base URL, timeouts, capped answers, no
 * redirects followed (a token is never sent anywhere but the registry named),
 * and an optional guard every request passes first.
 * Failures map to RyeErrors once, here: REGISTRY_UNREACHABLE for the network,
 * REGISTRY_BAD_RESPONSE for anything that is not the protocol, and the
 * server's own code for a registry error document with a known code.
 */
export class RegistryHttp {
  readonly url: string;
  readonly #fetch: FetchFn;
  readonly #timeoutMs: number;
  readonly #guard: RequestGuard | undefined;

  constructor(
    url: string,
    options: { fetch?: FetchFn; timeoutMs?: number; guard?: RequestGuard } = {},
  ) {
    this.url = url;
    this.#fetch = options.fetch ?? fetch;
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#guard = options.guard;
  }

  /**
   * Send a request and read the whole answer (any status).
   * @throws RyeError whatever the guard refuses with, REGISTRY_UNREACHABLE, REGISTRY_BAD_RESPONSE
   */
  async send(request: HttpRequest): Promise<HttpAnswer> {
    if (this.#guard !== undefined) await this.#guard(request);
    const target = new URL(request.path, this.url);
    for (const [key, value] of Object.entries(request.query ?? {}))
      if (value !== undefined) target.searchParams.set(key, value);
    const headers: Record<string, string> = { accept: 'application/json' };
    let body: string | Uint8Array | undefined;
    if (request.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(request.json);
    } else if (request.bytes !== undefined) {
      headers['content-type'] = 'application/octet-stream';
      body = request.bytes;
    }
    if (request.token !== undefined) headers['authorization'] = `Bearer ${request.token}`;
    const signal = AbortSignal.timeout(request.timeoutMs ?? this.#timeoutMs);
    const what = `${request.method} ${target.pathname}`;
    try {
      const response = await this.#fetch(target, {
        method: request.method,
        headers,
        redirect: 'manual',
        signal,
        ...(body === undefined ? {} : { body }),
      });
      const max = request.maxBytes ?? MAX_JSON_ANSWER_BYTES;
      return { status: response.status, body: await readCapped(response, max, what, this.url) };
    } catch (error) {
      if (error instanceof RyeError) throw error;
      const timedOut = signal.aborted;
      throw new RyeError(
        'REGISTRY_UNREACHABLE',
        timedOut
          ? `Cannot reach the registry at ${this.url}: ${what} got no answer within ${Math.round((request.timeoutMs ?? this.#timeoutMs) / 1000)} s`
          : `Cannot reach the registry at ${this.url}: ${causeOf(error)}`,
        { registry: this.url, request: what },
        { cause: error },
      );
    }
  }

  /** Send a request expecting a 2xx JSON answer; returns the status and the parsed value. */
  async json(request: HttpRequest): Promise<{ status: number; value: unknown }> {
    const answer = await this.send(request);
    if (answer.status < 200 || answer.status > 299) throw this.failure(request, answer);
    return { status: answer.status, value: parseJson(answer.body, this.url, request.path) };
  }

  /** Send a request expecting any 2xx answer (the body is not read as JSON). */
  async ok(request: HttpRequest): Promise<HttpAnswer> {
    const answer = await this.send(request);
    if (answer.status < 200 || answer.status > 299) throw this.failure(request, answer);
    return answer;
  }

  /** The error for a non-2xx answer. */
  failure(request: HttpRequest, answer: HttpAnswer): RyeError {
    const what = `${request.method} ${request.path}`;
    const doc = tryJson(answer.body);
    const error = isObject(doc) && isObject(doc['error']) ? doc['error'] : undefined;
    const code = error?.['code'];
    const message = error?.['message'];
    if (
      typeof code === 'string' &&
      typeof message === 'string' &&
      Object.hasOwn(ERROR_CODES, code)
    ) {
      return new RyeError(code as ErrorCode, printable(message, 500), {
        registry: this.url,
        status: answer.status,
        request: what,
      });
    }
    return badResponse(
      this.url,
      `${what} answered HTTP ${answer.status}${typeof code === 'string' ? ` with unknown code ${printable(code, 80)}` : ' without a registry error document'}`,
    );
  }
}

/** REGISTRY_BAD_RESPONSE for an answer that is not the protocol. */
export function badResponse(url: string, why: string): RyeError {
  return new RyeError(
    'REGISTRY_BAD_RESPONSE',
    `Cannot use the answer of the registry at ${url}: ${why}`,
    { registry: url },
  );
}

/** Parse a JSON answer body (strict UTF-8). @throws RyeError REGISTRY_BAD_RESPONSE */
export function parseJson(body: Buffer, url: string, path: string): unknown {
  const value = tryJson(body);
  if (value === undefined) throw badResponse(url, `${path} did not answer with JSON`);
  return value;
}

function tryJson(body: Buffer): unknown {
  try {
    return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(body)) as unknown;
  } catch {
    return undefined;
  }
}

async function readCapped(
  response: Response,
  max: number,
  what: string,
  url: string,
): Promise<Buffer> {
  const tooLarge = () => badResponse(url, `${what} answered with more than ${max} bytes`);
  const length = Number(response.headers.get('content-length') ?? '0');
  if (length > max) {
    await response.body?.cancel().catch(() => undefined);
    throw tooLarge();
  }
  if (response.body === null) return Buffer.alloc(0);
  const chunks: Buffer[] = [];
  let total = 0;
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > max) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    chunks.push(Buffer.from(value.buffer, value.byteOffset, value.byteLength));
  }
  return Buffer.concat(chunks, total);
}

function causeOf(error: unknown): string {
  const cause = error instanceof Error ? (error.cause ?? error) : error;
  if (cause instanceof Error) {
    const code = (cause as NodeJS.ErrnoException).code;
    return code === undefined ? cause.message : `${code} (${cause.message})`;
  }
  return String(cause);
}
