import type { Server as NodeHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { Hono } from 'hono';
import { RyeError, hintFor } from '../errors/index.js';
import { newJti } from '../capabilities/index.js';
import { checkHttpRequest, httpGuardFor, isLoopbackHost } from './http-guard.js';
import { stopSettled, type RyeMcpServer } from './server.js';

export interface HttpServeOptions {
  /** 0: an ephemeral port (the real one is in the answer). */
  readonly port: number;
  /** Default 127.0.0.1. */
  readonly host?: string;
  /** Needed to bind anything but loopback. */
  readonly allowRemote?: boolean;
  /** The bearer token every request must carry. */
  readonly token: string;
  /** A server for one new session. */
  readonly createServer: () => RyeMcpServer;
  readonly log: (line: string) => void;
}

export interface RunningHttpServer {
  /** `http://HOST:PORT/mcp`. */
  readonly url: string;
  readonly port: number;
  /** Live sessions. */
  sessions(): number;
  /**
   * Stop every session (calls aborted, each given STOP_SETTLE_MS to end: a
   * cancelled thread seals its transcript), then the listener.
   */
  close(): Promise<void>;
}

interface Session {
  readonly transport: WebStandardStreamableHTTPServerTransport;
  readonly mcp: RyeMcpServer;
}

/**
 * Serve MCP over Streamable HTTP at `/mcp` (THREADS.md §13, "later"): one
 * SDK server per session, each request checked first for its Host and Origin
 * (DNS rebinding) and its bearer token, before its body is read. Binds
 * loopback only unless `allowRemote`.
 *
 * @throws RyeError MCP_HTTP_BIND_REFUSED; the listen error (EADDRINUSE…)
 */
export async function serveHttp(options: HttpServeOptions): Promise<RunningHttpServer> {
  const host = options.host ?? '127.0.0.1';
  if (!isLoopbackHost(host) && options.allowRemote !== true)
    throw new RyeError(
      'MCP_HTTP_BIND_REFUSED',
      `Cannot listen on ${host}: only loopback addresses without --allow-remote`,
      { host },
    );
  const sessions = new Map<string, Session>();
  let guard = httpGuardFor(host, options.port, options.token);
  const app = new Hono();
  app.all('/mcp', async (c) => {
    const refusal = checkHttpRequest(
      {
        host: c.req.header('host'),
        origin: c.req.header('origin'),
        authorization: c.req.header('authorization'),
      },
      guard,
    );
    if (refusal !== undefined) {
      options.log(`refused ${c.req.method} /mcp: ${refusal.error.code}`);
      return jsonRpcError(refusal.status, refusal.error, refusal.status === 401);
    }
    const sessionId = c.req.header('mcp-session-id');
    if (sessionId !== undefined) {
      const session = sessions.get(sessionId);
      if (session === undefined)
        return jsonRpcError(
          404,
          new RyeError('MCP_HTTP_SESSION_UNKNOWN', 'Cannot find the session: it is not live here'),
        );
      return session.transport.handleRequest(c.req.raw);
    }
    return openSession(c.req.raw, sessions, options);
  });
  app.all('*', (c) => c.json({ error: { code: 'NOT_FOUND', message: 'MCP lives at /mcp' } }, 404));

  const server = serve({ fetch: app.fetch, port: options.port, hostname: host }) as NodeHttpServer;
  const port = await new Promise<number>((resolve, reject) => {
    server.once('listening', () => resolve((server.address() as AddressInfo).port));
    server.once('error', reject);
  });
  // With port 0 the guard learns the real port now, before any request is served.
  guard = httpGuardFor(host, port, options.token);
  const shown = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shown}:${port}/mcp`,
    port,
    sessions: () => sessions.size,
    async close() {
      const live = [...sessions.values()];
      sessions.clear();
      for (const session of live) session.mcp.stop();
      await stopSettled(live.map((s) => s.mcp));
      for (const session of live) await session.transport.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

/** A request without a session: an `initialize` opens one; the transport refuses anything else. */
async function openSession(
  request: Request,
  sessions: Map<string, Session>,
  options: HttpServeOptions,
): Promise<Response> {
  const mcp = options.createServer();
  const transport: WebStandardStreamableHTTPServerTransport =
    new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => newJti(),
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, mcp });
      },
      onsessionclosed: (id) => {
        sessions.delete(id);
        mcp.stop();
      },
    });
  await mcp.server.connect(transport);
  const response = await transport.handleRequest(request);
  if (transport.sessionId === undefined || !sessions.has(transport.sessionId)) {
    mcp.stop();
    await transport.close();
  }
  return response;
}

/** An HTTP refusal in JSON-RPC form, the project's code and hint in `error.data`. */
function jsonRpcError(status: number, error: RyeError, challenge = false): Response {
  const body = {
    jsonrpc: '2.0',
    error: {
      code: -32001,
      message: error.message,
      data: { code: error.code, hint: hintFor(error.code) },
    },
    id: null,
  };
  return new Response(JSON.stringify(body), {
    status,
    headers: {
      'content-type': 'application/json',
      ...(challenge ? { 'www-authenticate': 'Bearer realm="rye-mcp"' } : {}),
    },
  });
}
