import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { RyeError } from '../../src/errors/index.js';
import {
  createRyeMcpServer,
  mcpToolDefinitions,
  toCallResult,
  type RyeMcpServer,
} from '../../src/mcp/index.js';
import { internalErrorResult } from '../../src/mcp/results.js';
import { REDACTED_TOKEN, operatorAuthority } from '../../src/capabilities/index.js';
import type { OperationContext } from '../../src/ops/index.js';
import { makeCatalogProject, type CatalogProject } from '../helpers/catalog.js';

const clients: Client[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
});

/** A server and the SDK client linked in memory (no process, no pipe). */
async function linked(
  contextFor: (signal: AbortSignal) => Promise<OperationContext>,
): Promise<{ client: Client; mcp: RyeMcpServer; log: string[] }> {
  const log: string[] = [];
  const mcp = createRyeMcpServer({ version: 'test', log: (l) => log.push(l), contextFor });
  const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
  await mcp.server.connect(serverEnd);
  const client = new Client({ name: 'unit', version: '1' });
  await client.connect(clientEnd);
  clients.push(client);
  return { client, mcp, log };
}

const operator = (p: CatalogProject) => async (signal: AbortSignal) => ({
  spaces: p.spaces,
  env: p.env,
  authority: operatorAuthority(),
  signal,
});

const call = async (client: Client, name: string, args: Record<string, unknown>) =>
  (await client.callTool({ name, arguments: args })) as CallToolResult;

describe('toCallResult()', () => {
  it('puts the JSON in a text block and in structuredContent, isError only on status "error"', () => {
    const ok = toCallResult({ status: 'success', item_id: 'a/b', data: { n: 1 } });
    expect(ok).toEqual({
      content: [{ type: 'text', text: '{"status":"success","item_id":"a/b","data":{"n":1}}' }],
      structuredContent: { status: 'success', item_id: 'a/b', data: { n: 1 } },
      isError: false,
    });
    const failed = toCallResult({
      status: 'error',
      error: { code: 'ITEM_NOT_FOUND', message: 'no', hint: 'h' },
    });
    expect(failed.isError).toBe(true);
    expect(failed.structuredContent).toEqual({
      status: 'error',
      error: { code: 'ITEM_NOT_FOUND', message: 'no', hint: 'h' },
    });
  });

  it('redacts capability tokens in both parts', () => {
    const token = `rye-cap-v1.${'A'.repeat(40)}`;
    const result = toCallResult({ status: 'success', item_id: 'x', data: { env: `T=${token}` } });
    expect(JSON.stringify(result)).not.toContain(token);
    expect(result.content[0]?.text).toContain(REDACTED_TOKEN);
    expect(result.structuredContent).toMatchObject({ data: { env: `T=${REDACTED_TOKEN}` } });
  });

  it('answers a bug with INTERNAL_ERROR and its message, never its stack', () => {
    const result = internalErrorResult(new TypeError('boom'));
    expect(result.structuredContent).toMatchObject({
      status: 'error',
      error: { code: 'INTERNAL_ERROR', message: 'boom' },
    });
    expect(result.content[0]?.text).not.toContain('at ');
  });
});

describe('createRyeMcpServer() over InMemoryTransport', () => {
  it('offers the four tools whose output schema validates both outcomes (the client checks it)', async () => {
    const p = await makeCatalogProject();
    p.knowledge('notes/one');
    const { client } = await linked(operator(p));
    const { tools } = await client.listTools();
    expect(tools).toEqual((await mcpToolDefinitions()).map((t) => ({ ...t })));
    const ok = await call(client, 'load', { item_type: 'knowledge', item_id: 'notes/one' });
    expect(ok.structuredContent).toMatchObject({ status: 'success', item_id: 'notes/one' });
    const refused = await call(client, 'load', { item_type: 'knowledge', item_id: 'notes/two' });
    expect(refused).toMatchObject({
      isError: true,
      structuredContent: {
        status: 'error',
        item_id: 'notes/two',
        error: { code: 'ITEM_NOT_FOUND' },
      },
    });
  });

  it('keeps JSON-RPC errors for protocol faults', async () => {
    const p = await makeCatalogProject();
    const { client } = await linked(operator(p));
    await expect(client.listResources()).rejects.toThrow(/Method not found/);
  });

  it('answers a ceiling refusal with its code, and a bug with INTERNAL_ERROR, then keeps serving', async () => {
    const p = await makeCatalogProject();
    let mode: 'refuse' | 'bug' | 'ok' = 'refuse';
    const { client, log } = await linked(async (signal) => {
      if (mode === 'refuse')
        throw new RyeError('CAPABILITY_TOKEN_INVALID', 'Cannot accept the capability token: x', {
          reason: 'expired',
        });
      if (mode === 'bug') throw new Error('a bug');
      return operator(p)(signal);
    });
    const refused = await call(client, 'search', { query: 'x' });
    expect(refused.structuredContent).toMatchObject({
      status: 'error',
      error: { code: 'CAPABILITY_TOKEN_INVALID', details: { reason: 'expired' } },
    });
    mode = 'bug';
    const bug = await call(client, 'load', { item_type: 'tool', item_id: 'a/b' });
    expect(bug.structuredContent).toMatchObject({ error: { code: 'INTERNAL_ERROR' } });
    expect(log.join('\n')).toContain('internal error in load: Error: a bug');
    mode = 'ok';
    expect((await call(client, 'search', { query: '' })).isError).toBe(false);
  });

  it('stop() aborts the calls in flight and refuses new ones with MCP_SERVER_STOPPING', async () => {
    const p = await makeCatalogProject();
    let seen: AbortSignal | undefined;
    const { client, mcp } = await linked(
      (signal) =>
        new Promise((resolve) => {
          seen = signal;
          signal.addEventListener('abort', () => resolve(operator(p)(signal)));
        }),
    );
    const pending = call(client, 'search', { query: '' });
    while (seen === undefined) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(mcp.inFlight()).toBe(1);
    mcp.stop();
    expect(seen?.aborted).toBe(true);
    await pending;
    expect(mcp.inFlight()).toBe(0);
    const late = await call(client, 'search', { query: '' });
    expect(late.structuredContent).toMatchObject({ error: { code: 'MCP_SERVER_STOPPING' } });
  });

  it('sends progress notifications to a caller that asked for them', async () => {
    const p = await makeCatalogProject();
    p.knowledge('notes/one');
    const { client } = await linked(operator(p));
    const updates: Progress[] = [];
    const result = (await client.callTool(
      { name: 'load', arguments: { item_type: 'knowledge', item_id: 'notes/one' } },
      undefined,
      { onprogress: (update) => updates.push(update) },
    )) as CallToolResult;
    expect(result.isError).toBe(false);
    expect(updates.length).toBeGreaterThan(0);
    expect(updates.at(-1)).toMatchObject({ message: 'load: success' });
    const progress = updates.map((u) => u.progress);
    expect([...progress].sort((a, b) => a - b)).toEqual(progress);
  });
});
