/**
 * The scripted provider: a real HTTP server on 127.0.0.1:0 that speaks the
 * Anthropic Messages and OpenAI Chat Completions wire formats (JSON and SSE)
 * from a script, applies the real APIs' request checks, and captures every
 * request's headers and body for assertions. A request the script cannot
 * answer gets a 500 and is listed in `problems`.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { anthropicError } from './anthropic-replies.js';
import { openAIError } from './openai-replies.js';
import { sendJson } from './respond.js';
import { handleAnthropic } from './route-anthropic.js';
import type { ResolvedOptions, RouteContext } from './route-context.js';
import { handleOpenAI } from './route-openai.js';
import { ScriptBook, type ScriptEntry } from './script.js';

export interface ScriptedProviderOptions {
  readonly script: readonly ScriptEntry[];
  /** The key both routes accept (default `test-key`). */
  readonly key?: string;
  /**
   * Where the Anthropic route wants it: `authorization` (Bearer, the default:
   * what the official SDK 1.x sends for an API key) or `x-api-key`.
   */
  readonly anthropicAuth?: 'x-api-key' | 'authorization';
  /** Characters per SSE piece (default 8), so replies arrive as several deltas. */
  readonly chunk?: number;
  readonly created?: number;
}

/** One request as the server saw it. */
export interface CapturedRequest {
  readonly route: 'anthropic' | 'openai' | 'unknown';
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string | undefined>>;
  /** The parsed JSON body, or undefined when it did not parse. */
  readonly body: unknown;
  readonly raw: string;
  status?: number;
  conversation?: string;
  turn?: number;
  /** Epoch ms (sub-ms precision) when the request's headers arrived, and when its answer was sent. */
  readonly startedMs: number;
  finishedMs?: number;
}

export interface ScriptedProvider {
  /** `http://127.0.0.1:<port>`: the Anthropic SDK's `baseURL`. */
  readonly url: string;
  /** `<url>/v1`: the OpenAI SDK's `baseURL`. */
  readonly openaiBaseUrl: string;
  readonly requests: readonly CapturedRequest[];
  readonly problems: readonly string[];
  /** Play the script again from its first turn, as to a new server on the same address (a rerun). */
  rewind(): void;
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 16 * 1024 * 1024;

export async function startScriptedProvider(
  options: ScriptedProviderOptions,
): Promise<ScriptedProvider> {
  const resolved: ResolvedOptions = {
    key: options.key ?? 'test-key',
    anthropicAuth: options.anthropicAuth ?? 'authorization',
    chunk: options.chunk ?? 8,
    created: options.created ?? 1_700_000_000,
  };
  let book = new ScriptBook(options.script);
  const requests: CapturedRequest[] = [];
  const problems: string[] = [];
  let counter = 0;
  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      problems.push(`server error: ${error instanceof Error ? error.message : String(error)}`);
      if (!res.headersSent) sendJson(res, 500, { error: 'scripted provider crashed' });
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const startedMs = epochMs();
    const path = (req.url ?? '/').split('?')[0]!;
    const route =
      path === '/v1/messages'
        ? 'anthropic'
        : path === '/v1/chat/completions'
          ? 'openai'
          : 'unknown';
    const bytes = await readBody(req);
    const raw = bytes === null ? '' : bytes.toString('utf8');
    const record: CapturedRequest = {
      route,
      method: req.method ?? '',
      path,
      headers: { ...req.headers } as Record<string, string | undefined>,
      body: parseJson(raw),
      raw,
      startedMs,
    };
    res.once('finish', () => (record.finishedMs = epochMs()));
    requests.push(record);
    counter += 1;
    const requestId = `req_scripted_${counter}`;
    if (bytes === null) {
      record.status = 413;
      const body =
        route === 'openai'
          ? openAIError('invalid_request_error', 'Request too large')
          : anthropicError(
              'request_too_large',
              'Request exceeds the maximum allowed number of bytes.',
              requestId,
            );
      return sendJson(res, 413, body);
    }
    if (route === 'unknown' || req.method !== 'POST') {
      record.status = 404;
      return sendJson(res, 404, anthropicError('not_found_error', 'Not Found', requestId));
    }
    const ctx: RouteContext = {
      res,
      headers: record.headers,
      body: record.body,
      raw,
      requestId,
      book,
      options: resolved,
      record: (facts) => Object.assign(record, facts),
      problem: (message) => problems.push(message),
    };
    await (route === 'anthropic' ? handleAnthropic(ctx) : handleOpenAI(ctx));
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    openaiBaseUrl: `${url}/v1`,
    requests,
    problems,
    rewind() {
      book = new ScriptBook(options.script);
      counter = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const epochMs = (): number => performance.timeOrigin + performance.now();

/** The body, or null when it is over the cap. */
async function readBody(req: IncomingMessage): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  let over = false;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) over = true;
    else chunks.push(chunk);
  }
  return over ? null : Buffer.concat(chunks);
}

function parseJson(raw: string): unknown {
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return undefined;
  }
}
