import { afterEach, describe, expect, it } from 'vitest';
import type { Message } from '../../../src/threads/conversation/index.js';
import {
  createAnthropicClient,
  type ClientConfig,
  type ProviderProgress,
  type ProviderRequest,
} from '../../../src/threads/providers/index.js';
import { refusal } from '../../helpers/refusal.js';
import {
  startScriptedProvider,
  type ScriptTurn,
  type ScriptedProvider,
} from '../../support/scripted-provider/index.js';

const SYSTEM = '<directive name="implement_feature" version="1.0.0">Do it.</directive>';
const FIRST: Message = { role: 'user', content: [{ type: 'text', text: '{"feature":"a"}' }] };
const TOOLS = [
  {
    name: 'rye_execute',
    description: 'Execute an item',
    input_schema: { type: 'object', properties: { item_id: { type: 'string' } } },
  },
];

let server: ScriptedProvider | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function setup(
  turns: ScriptTurn[],
  options: { header?: 'x-api-key' | 'authorization' } = {},
): Promise<{ s: ScriptedProvider; client: ReturnType<typeof createAnthropicClient> }> {
  const header = options.header ?? 'authorization';
  server = await startScriptedProvider({
    script: [{ match: { directive: 'implement_feature' }, turns }],
    anthropicAuth: header,
  });
  const config: ClientConfig = {
    provider: 'test',
    baseUrl: server.url,
    auth:
      header === 'authorization'
        ? { header, scheme: 'Bearer', env: 'TEST_KEY' }
        : { header, env: 'TEST_KEY' },
    credential: 'test-key',
    headers: { 'anthropic-version': '2026-10-21', 'x-test-header': 'fixed' },
  };
  return { s: server, client: createAnthropicClient(config) };
}

function request(messages: Message[] = [FIRST]): ProviderRequest {
  return {
    model: 'claude-sonnet-4-20250514',
    system: SYSTEM,
    messages,
    tools: TOOLS,
    max_tokens: 512,
  };
}

describe('createAnthropicClient()', () => {
  it('streams a turn and normalises text, tool calls, usage and stop reason; deltas only go to onProgress', async () => {
    const { s, client } = await setup([
      {
        text: 'Writing the handler now.',
        tool_calls: [{ name: 'rye_execute', input: { item_id: 'apps/x/build' } }],
        usage: { in: 120, out: 30, cache_r: 7, cache_w: 3 },
      },
    ]);
    const progress: ProviderProgress[] = [];
    const response = await client.send(request(), { onProgress: (e) => progress.push(e) });
    expect(response.content).toEqual([
      { type: 'text', text: 'Writing the handler now.' },
      {
        type: 'tool_call',
        id: expect.stringMatching(/^toolu_/),
        name: 'rye_execute',
        input: { item_id: 'apps/x/build' },
      },
    ]);
    expect(response).toMatchObject({
      stop_reason: 'tool_use',
      provider_stop_reason: 'tool_use',
      usage: { in: 120, out: 30, cache_r: 7, cache_w: 3 },
      provider_msg_id: expect.stringMatching(/^msg_/),
      model: 'claude-sonnet-4-20250514',
    });
    const texts = progress.filter((e) => e.type === 'text_delta');
    expect(texts.length).toBeGreaterThan(1);
    expect(texts.map((e) => (e.type === 'text_delta' ? e.text : '')).join('')).toBe(
      'Writing the handler now.',
    );
    const args = progress
      .map((e) => (e.type === 'tool_call_delta' ? e.arguments_delta : ''))
      .join('');
    expect(JSON.parse(args)).toEqual({ item_id: 'apps/x/build' });

    const sent = s.requests[0]!;
    expect(sent.body).toMatchObject({
      stream: true,
      max_tokens: 512,
      system: SYSTEM,
      model: 'claude-sonnet-4-20250514',
    });
    expect(sent.headers['authorization']).toBe('Bearer test-key');
    expect(sent.headers['x-api-key']).toBeUndefined();
    expect(sent.headers['x-test-header']).toBe('fixed');
    expect(sent.headers['x-stainless-retry-count']).toBe('0');
  });

  it('sends the key as x-api-key alone when the descriptor says so, whatever the environment holds', async () => {
    const saved = { ...process.env };
    process.env['ANTHROPIC_AUTH_TOKEN'] = 'leaked-token';
    process.env['ANTHROPIC_API_KEY'] = 'leaked-key';
    process.env['ANTHROPIC_BASE_URL'] = 'http://127.0.0.1:1';
    try {
      const { s, client } = await setup([{ text: 'ok' }], { header: 'x-api-key' });
      await client.send(request());
      const headers = s.requests[0]!.headers;
      expect(headers['x-api-key']).toBe('test-key');
      expect(headers['authorization']).toBeUndefined();
      expect(JSON.stringify(headers)).not.toMatch(/leaked/);
    } finally {
      process.env = saved;
    }
  });

  it('translates a whole conversation so the API checks pass: results first, errors flagged, bad arguments echoed in a wrapper', async () => {
    const { s, client } = await setup([{ text: 'fine' }]);
    const history: Message[] = [
      FIRST,
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Two calls.' },
          { type: 'tool_call', id: 'toolu_a', name: 'rye_execute', input: { item_id: 'x' } },
          {
            type: 'tool_call',
            id: 'toolu_b',
            name: 'rye_execute',
            input: '{"item_id": ',
            invalid_input: 'not JSON',
          },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Reminder: return when done.' },
          { type: 'tool_result', call_id: 'toolu_a', ok: true, content: '{"ok":true}' },
          {
            type: 'tool_result',
            call_id: 'toolu_b',
            ok: false,
            content: '{"error":{"code":"PROVIDER_RESPONSE_INVALID"}}',
          },
        ],
      },
    ];
    const response = await client.send(request(history));
    expect(response.content).toEqual([{ type: 'text', text: 'fine' }]);
    const messages = (s.requests[0]!.body as { messages: { content: { type: string }[] }[] })
      .messages;
    expect(messages[1]!.content[2]).toEqual({
      type: 'tool_use',
      id: 'toolu_b',
      name: 'rye_execute',
      input: { invalid_arguments: '{"item_id": ' },
    });
    expect(messages[2]!.content.map((b) => b.type)).toEqual(['tool_result', 'tool_result', 'text']);
    expect(messages[2]!.content[1]).toMatchObject({ is_error: true });
  });

  it('keeps malformed partial_json as raw text flagged invalid, never {}', async () => {
    const { client } = await setup([
      { tool_calls: [{ name: 'rye_execute', raw_arguments: '{"item_id": "apps/' }] },
    ]);
    const response = await client.send(request());
    const call = response.content[0];
    expect(call).toMatchObject({
      type: 'tool_call',
      name: 'rye_execute',
      input: '{"item_id": "apps/',
    });
    expect(call?.type === 'tool_call' ? call.invalid_input : undefined).toMatch(/not valid JSON/);
  });

  it('fails the attempt on duplicate call ids', async () => {
    const { client } = await setup([
      {
        tool_calls: [
          { name: 'rye_execute', input: {}, id: 'toolu_same' },
          { name: 'rye_execute', input: {}, id: 'toolu_same' },
        ],
      },
    ]);
    const refused = await refusal(client.send(request()));
    expect(refused).toMatchObject({
      code: 'PROVIDER_RESPONSE_INVALID',
      details: { retryable: true, id: 'toolu_same' },
    });
  });

  it('reports missing and garbled usage as absent, and excess usage as sent (the budget judges it)', async () => {
    const { client } = await setup([
      { text: 'a', usage: 'missing' },
      { text: 'b', usage: { in: -4, out: 1 } },
      { text: 'c', usage: { in: 9_000_000, out: 9_000_000 } },
    ]);
    const missing = await client.send(request());
    expect(missing.usage).toBeUndefined();
    expect(missing.usage_problem).toBe('missing');
    const garbled = await client.send(request());
    expect(garbled.usage_problem).toBe('malformed');
    expect((await client.send(request())).usage).toEqual({
      in: 9_000_000,
      out: 9_000_000,
      cache_r: 0,
      cache_w: 0,
    });
  });

  it('classifies failures: 429 and 529 transient (one request each), 401 auth, quota permanent, 400 rejected', async () => {
    const { s, client } = await setup([
      { fault: 'rate_limit', retry_after: '2' },
      { fault: 'overloaded' },
      { fault: 'auth' },
      { fault: 'quota' },
      {
        fault: 'status',
        status: 400,
        message: 'Your credit balance is too low to access the Anthropic API.',
      },
    ]);
    expect(await refusal(client.send(request()))).toMatchObject({
      code: 'PROVIDER_REQUEST_FAILED',
      details: {
        status: 429,
        retryable: true,
        retry_after_ms: 2000,
        error_type: 'rate_limit_error',
      },
    });
    expect(s.requests).toHaveLength(1);
    expect(await refusal(client.send(request()))).toMatchObject({
      code: 'PROVIDER_REQUEST_FAILED',
      details: { status: 529, retryable: true },
    });
    expect((await refusal(client.send(request()))).code).toBe('PROVIDER_AUTH_FAILED');
    expect((await refusal(client.send(request()))).code).toBe('PROVIDER_QUOTA_EXCEEDED');
    expect((await refusal(client.send(request()))).code).toBe('PROVIDER_QUOTA_EXCEEDED');
    expect(s.requests).toHaveLength(5);
  });

  it('passes the API checks through: a request the API refuses is PROVIDER_REQUEST_REJECTED with its message', async () => {
    const { client } = await setup([{ text: 'never' }]);
    const unanswered: Message[] = [
      FIRST,
      {
        role: 'assistant',
        content: [{ type: 'tool_call', id: 'toolu_x', name: 'rye_execute', input: {} }],
      },
      { role: 'user', content: [{ type: 'text', text: 'no result' }] },
    ];
    const refused = await refusal(client.send(request(unanswered)));
    expect(refused).toMatchObject({
      code: 'PROVIDER_REQUEST_REJECTED',
      details: { status: 400, retryable: false },
    });
    expect(refused.message).toMatch(/tool_use` ids were found without `tool_result`/);
  });

  it('makes an SSE error, a mid-stream reset and a reset before any answer transient', async () => {
    const reply = { text: 'a long enough answer to stream in pieces' };
    const { client } = await setup([
      { fault: 'sse_error', after_events: 4, reply },
      { fault: 'reset', after_events: 4, reply },
      { fault: 'reset' },
    ]);
    expect(await refusal(client.send(request()))).toMatchObject({
      code: 'PROVIDER_REQUEST_FAILED',
      details: { retryable: true, error_type: 'overloaded_error' },
    });
    expect(await refusal(client.send(request()))).toMatchObject({
      code: 'PROVIDER_REQUEST_FAILED',
      details: { retryable: true },
    });
    expect(await refusal(client.send(request()))).toMatchObject({
      code: 'PROVIDER_REQUEST_FAILED',
      details: { retryable: true },
    });
  });

  it('aborts a stalled stream on the signal and at the deadline, and sends nothing past a deadline', async () => {
    const reply = { text: 'this stream stops half way' };
    const { s, client } = await setup([
      // message_start, content_block_start, ping, one text delta: then silence.
      { fault: 'stall', after_events: 4, reply },
      { fault: 'stall', after_events: 4, reply },
    ]);
    const controller = new AbortController();
    const aborted = client.send(request(), {
      signal: controller.signal,
      onProgress: () => controller.abort(),
    });
    expect(await refusal(aborted)).toMatchObject({
      code: 'PROVIDER_REQUEST_ABORTED',
      details: { reason: 'signal' },
    });
    const late = client.send(request(), { deadline: Date.now() + 300 });
    expect(await refusal(late)).toMatchObject({
      code: 'PROVIDER_REQUEST_ABORTED',
      details: { reason: 'deadline' },
    });
    const past = client.send(request(), { deadline: Date.now() - 1 });
    expect(await refusal(past)).toMatchObject({
      code: 'PROVIDER_REQUEST_ABORTED',
      details: { reason: 'deadline' },
    });
    expect(s.requests).toHaveLength(2);
  });
});
