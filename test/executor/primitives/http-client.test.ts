import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runHttpRequest } from '../../../src/executor/primitives/http-client.js';
import type { HttpRequest } from '../../../src/executor/types.js';

const TOKEN = 'sk-live-very-secret-token-123';
const hits = new Map<string, number>();
let server: Server;
let base: string;
let closedPort: number;

async function readText(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const path = req.url ?? '/';
  const count = (hits.get(path) ?? 0) + 1;
  hits.set(path, count);
  const json = (status: number, value: unknown): void => {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'X-Custom': 'Yes' });
    res.end(JSON.stringify(value));
  };
  if (path === '/echo') {
    return json(200, { method: req.method, headers: req.headers, body: await readText(req) });
  }
  if (path === '/fail') return json(500, { error: 'boom' });
  if (path === '/slow-once') {
    // First attempt hangs past the client timeout; the retry is answered at once.
    if (count === 1) await new Promise((resolve) => setTimeout(resolve, 3_000));
    return json(200, { attempt: count });
  }
  if (path === '/slow-always') {
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    return json(200, {});
  }
  if (path === '/big') {
    res.writeHead(200, { 'content-type': 'text/plain' });
    return void res.end('é'.repeat(512 * 1024));
  }
  if (path === '/bad-json') {
    res.writeHead(200, { 'content-type': 'application/json' });
    return void res.end('{not json');
  }
  if (path === '/redirect') {
    res.writeHead(302, { location: '/echo' });
    return void res.end();
  }
  res.writeHead(404);
  res.end();
}

beforeAll(async () => {
  server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  closedPort = (probe.address() as AddressInfo).port;
  await new Promise((resolve) => probe.close(resolve));
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => hits.clear());

function request(url: string, extra: Partial<HttpRequest> = {}): HttpRequest {
  return {
    method: 'GET',
    url,
    headers: {},
    body: null,
    auth: null,
    timeoutMs: 5_000,
    retry: { maxAttempts: 3, backoff: 'exponential', baseDelayMs: 10 },
    maxResponseBytes: 1024 * 1024,
    ...extra,
  };
}

describe('runHttpRequest()', () => {
  it('GETs JSON, parsed, with lower-cased response headers', async () => {
    const result = await runHttpRequest(request(`${base}/echo`));
    expect(result).toMatchObject({ status: 200, attempts: 1, truncated: false });
    expect(result.body).toMatchObject({ method: 'GET', body: '' });
    expect(result.headers['x-custom']).toBe('Yes');
  });

  it('POSTs a JSON body with content-type application/json', async () => {
    const result = await runHttpRequest(
      request(`${base}/echo`, {
        method: 'POST',
        body: { a: [1, 'é'] },
        headers: { 'X-Trace': '7' },
      }),
    );
    const echoed = result.body as { headers: Record<string, string>; body: string };
    expect(JSON.parse(echoed.body)).toEqual({ a: [1, 'é'] });
    expect(echoed.headers['content-type']).toBe('application/json');
    expect(echoed.headers['x-trace']).toBe('7');
  });

  it('keeps a content-type the caller gave', async () => {
    const headers = { 'Content-Type': 'application/vnd.api+json' };
    const result = await runHttpRequest(
      request(`${base}/echo`, { method: 'PUT', body: 1, headers }),
    );
    const echoed = result.body as { headers: Record<string, string> };
    expect(echoed.headers['content-type']).toBe('application/vnd.api+json');
  });

  it('sends a bearer token as Authorization', async () => {
    const result = await runHttpRequest(
      request(`${base}/echo`, { auth: { type: 'bearer', token: TOKEN } }),
    );
    const echoed = result.body as { headers: Record<string, string> };
    expect(echoed.headers['authorization']).toBe(`Bearer ${TOKEN}`);
  });

  it('sends an api key in the named header', async () => {
    const result = await runHttpRequest(
      request(`${base}/echo`, { auth: { type: 'api_key', key: TOKEN, header: 'X-Api-Key' } }),
    );
    const echoed = result.body as { headers: Record<string, string> };
    expect(echoed.headers['x-api-key']).toBe(TOKEN);
  });

  it('returns a 500 as a result without retrying', async () => {
    const result = await runHttpRequest(request(`${base}/fail`));
    expect(result).toMatchObject({ status: 500, attempts: 1, body: { error: 'boom' } });
    expect(hits.get('/fail')).toBe(1);
  });

  it('returns a redirect as a result instead of following it', async () => {
    const result = await runHttpRequest(request(`${base}/redirect`));
    expect(result).toMatchObject({ status: 302, headers: { location: '/echo' } });
    expect(hits.get('/echo')).toBeUndefined();
  });

  it('keeps the text when a JSON response does not parse', async () => {
    const result = await runHttpRequest(request(`${base}/bad-json`));
    expect(result.body).toBe('{not json');
  });

  it('retries a refused connection maxAttempts times, then throws HTTP_REQUEST_FAILED', async () => {
    const url = `http://127.0.0.1:${closedPort}/x`;
    const retry = { maxAttempts: 3, backoff: 'linear', baseDelayMs: 5 } as const;
    const error = await runHttpRequest(request(url, { retry })).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'HTTP_REQUEST_FAILED', details: { url, attempts: 3 } });
    expect((error as { details: { lastError: string } }).details.lastError).toContain(
      'ECONNREFUSED',
    );
  });

  it('times out a slow attempt and retries it', async () => {
    const result = await runHttpRequest(request(`${base}/slow-once`, { timeoutMs: 300 }));
    expect(result).toMatchObject({ status: 200, attempts: 2, body: { attempt: 2 } });
  });

  it('gives up with HTTP_REQUEST_FAILED when every attempt times out', async () => {
    const retry = { maxAttempts: 2, backoff: 'exponential', baseDelayMs: 1 } as const;
    const error = await runHttpRequest(
      request(`${base}/slow-always`, { timeoutMs: 200, retry }),
    ).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'HTTP_REQUEST_FAILED', details: { attempts: 2 } });
    expect((error as Error).message).toContain('timed out after 200 ms');
    expect(hits.get('/slow-always')).toBe(2);
  });

  it('caps the response body on a character boundary and marks it truncated', async () => {
    const result = await runHttpRequest(request(`${base}/big`, { maxResponseBytes: 1001 }));
    expect(result).toMatchObject({ status: 200, truncated: true });
    expect(result.body).toBe('é'.repeat(500));
  });

  it.each(['file:///etc/passwd', 'ftp://example.com/', 'javascript:alert(1)', 'not a url'])(
    'refuses %s with EXECUTOR_CONFIG_INVALID',
    async (url) => {
      await expect(runHttpRequest(request(url))).rejects.toMatchObject({
        code: 'EXECUTOR_CONFIG_INVALID',
      });
    },
  );

  it('refuses a body on a GET', async () => {
    await expect(runHttpRequest(request(`${base}/echo`, { body: {} }))).rejects.toMatchObject({
      code: 'EXECUTOR_CONFIG_INVALID',
    });
  });

  it('never puts the auth token in the error message or details', async () => {
    const url = `http://127.0.0.1:${closedPort}/${TOKEN}`;
    const auth = { type: 'bearer', token: TOKEN } as const;
    const error = await runHttpRequest(request(url, { auth })).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'HTTP_REQUEST_FAILED' });
    const text = JSON.stringify((error as { toJSON(): unknown }).toJSON());
    expect(text).not.toContain(TOKEN);
    expect((error as Error).message).not.toContain(TOKEN);
  });

  it('never puts the token in the error for an invalid header', async () => {
    const auth = { type: 'api_key', key: `${TOKEN}\r\nX-Evil: 1`, header: 'X-Api-Key' } as const;
    const error = await runHttpRequest(request(`${base}/echo`, { auth })).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'EXECUTOR_CONFIG_INVALID' });
    expect((error as Error).message).not.toContain(TOKEN);
  });
});
