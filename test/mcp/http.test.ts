import { request } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { rye } from '../helpers/cli.js';
import { makeMcpProject, startHttp, until } from './support.js';

const TOKEN = `rye_test_${'t'.repeat(40)}`;
/** A raw request, so Host and Origin can be anything (fetch forbids setting Host). */
function raw(
  url: URL,
  headers: Record<string, string>,
  body = '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
): Promise<{ status: number; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (d: string) => (text += d));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            body: JSON.parse(text) as Record<string, unknown>,
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const dataCode = (body: Record<string, unknown>): unknown =>
  (body['error'] as { data?: { code?: unknown } })?.data?.code;

describe('rye mcp serve --http', () => {
  it('serves the SDK client over Streamable HTTP with the bearer token', async () => {
    const p = await makeMcpProject();
    const server = await startHttp(p, { RYE_MCP_HTTP_TOKEN: TOKEN });
    expect(server.url.hostname).toBe('127.0.0.1');
    expect(server.url.pathname).toBe('/mcp');
    expect(server.stderr()).not.toContain(TOKEN);
    const client = new Client({ name: 'http-test', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(server.url, {
        requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
      }),
    );
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(['execute', 'search', 'load', 'sign']);
      const loaded = (await client.callTool({
        name: 'load',
        arguments: { item_type: 'knowledge', item_id: 'notes/alpha' },
      })) as CallToolResult;
      expect(loaded.structuredContent).toMatchObject({ status: 'success', item_id: 'notes/alpha' });
      const echoed = (await client.callTool({
        name: 'execute',
        arguments: { item_type: 'tool', item_id: 't/echo', parameters: { via: 'http' } },
      })) as CallToolResult;
      expect(echoed.structuredContent).toMatchObject({ data: { echo: { via: 'http' } } });
    } finally {
      await client.close();
    }
    server.child.kill('SIGTERM');
    const code = await new Promise((resolve) => server.child.once('exit', resolve));
    expect(code).toBe(0);
  });

  it('refuses a request without the token (401), with a foreign Host or Origin (403), or an unknown session (404)', async () => {
    const p = await makeMcpProject();
    const server = await startHttp(p);
    await until(() => server.stderr().includes('bearer token: '), 5_000, 'the token line');
    const token = /bearer token: (\S+)/.exec(server.stderr())?.[1] ?? '';
    expect(token).toMatch(/^rye_/);
    const host = server.url.host;
    const auth = { authorization: `Bearer ${token}` };

    const none = await raw(server.url, { host });
    expect(none.status).toBe(401);
    expect(dataCode(none.body)).toBe('MCP_HTTP_UNAUTHORIZED');
    const wrong = await raw(server.url, { host, authorization: `Bearer ${token}x` });
    expect(wrong.status).toBe(401);

    const rebound = await raw(server.url, { ...auth, host: `attacker.example:${server.url.port}` });
    expect(rebound.status).toBe(403);
    expect(dataCode(rebound.body)).toBe('MCP_HTTP_HOST_REFUSED');
    const origin = await raw(server.url, { ...auth, host, origin: 'http://attacker.example' });
    expect(origin.status).toBe(403);

    const stale = await raw(server.url, { ...auth, host, 'mcp-session-id': 'f'.repeat(32) });
    expect(stale.status).toBe(404);
    expect(dataCode(stale.body)).toBe('MCP_HTTP_SESSION_UNKNOWN');

    // Without a session, only initialize opens one; the SDK refuses anything else.
    const noSession = await raw(server.url, { ...auth, host });
    expect(noSession.status).toBe(400);
  });

  it('refuses to bind a non-loopback address without --allow-remote', async () => {
    const p = await makeMcpProject();
    const res = await rye(
      ['mcp', 'serve', '--project', p.project, '--http', '0', '--host', '0.0.0.0'],
      { env: p.env },
    );
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('error[MCP_HTTP_BIND_REFUSED]');
    expect(res.stdout).toBe('');
  });
});
