import { afterEach, describe, expect, it } from 'vitest';
import type { Message } from '../../../src/threads/conversation/index.js';
import {
  createOpenAIClient,
  type ProviderProgress,
  type ProviderRequest,
} from '../../../src/threads/providers/index.js';
import { refusal } from '../../helpers/refusal.js';
import {
  startScriptedProvider,
  type ScriptTurn,
  type ScriptedProvider,
} from '../../support/scripted-provider/index.js';

const SYSTEM = '<directive name="run_tests" version="1.0.0">Run them.</directive>';
const FIRST: Message = { role: 'user', content: [{ type: 'text', text: '{}' }] };
const TOOLS = [
  { name: 'rye_execute', description: 'Execute', input_schema: { type: 'object', properties: {} } },
];

let server: ScriptedProvider | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function setup(
  turns: ScriptTurn[],
  maxTokensField?: 'max_tokens' | 'max_completion_tokens',
): Promise<{ s: ScriptedProvider; client: ReturnType<typeof createOpenAIClient> }> {
  server = await startScriptedProvider({ script: [{ match: { directive: 'run_tests' }, turns }] });
  const client = createOpenAIClient({
    provider: 'openai',
    baseUrl: server.openaiBaseUrl,
    auth: { header: 'authorization', scheme: 'Bearer', env: 'OPENAI_API_KEY' },
    credential: 'test-key',
    headers: { 'x-test-header': 'fixed' },
    ...(maxTokensField === undefined ? {} : { maxTokensField }),
  });
  return { s: server, client };
}

function request(messages: Message[] = [FIRST]): ProviderRequest {
  return { model: 'gpt-4.1', system: SYSTEM, messages, tools: TOOLS, max_tokens: 256 };
}

describe('createOpenAIClient()', () => {
  it('streams with include_usage and normalises text, tool calls by index, cached usage and finish reason', async () => {
    const { s, client } = await setup([
      {
        text: 'Running the suite.',
        tool_calls: [
          { name: 'rye_execute', input: { item_id: 'apps/t/test_runner' } },
          { name: 'rye_execute', input: { item_id: 'apps/t/build' } },
        ],
        usage: { in: 100, out: 20, cache_r: 40 },
      },
    ]);
    const progress: ProviderProgress[] = [];
    const response = await client.send(request(), { onProgress: (e) => progress.push(e) });
    expect(response.content).toEqual([
      { type: 'text', text: 'Running the suite.' },
      {
        type: 'tool_call',
        id: expect.stringMatching(/^call_/),
        name: 'rye_execute',
        input: { item_id: 'apps/t/test_runner' },
      },
      {
        type: 'tool_call',
        id: expect.stringMatching(/^call_/),
        name: 'rye_execute',
        input: { item_id: 'apps/t/build' },
      },
    ]);
    // prompt_tokens (140) include the cached 40: `in` counts the uncached ones, as Anthropic's does.
    expect(response).toMatchObject({
      stop_reason: 'tool_use',
      provider_stop_reason: 'tool_calls',
      usage: { in: 100, out: 20, cache_r: 40 },
      provider_msg_id: expect.stringMatching(/^chatcmpl-/),
    });
    expect(progress.filter((e) => e.type === 'text_delta').length).toBeGreaterThan(1);
    const sent = s.requests[0]!;
    expect(sent.body).toMatchObject({
      stream: true,
      stream_options: { include_usage: true },
      max_completion_tokens: 256,
      messages: [
        { role: 'system', content: SYSTEM },
        { role: 'user', content: '{}' },
      ],
    });
    expect((sent.body as Record<string, unknown>)['max_tokens']).toBeUndefined();
    expect(sent.headers['authorization']).toBe('Bearer test-key');
    expect(sent.headers['x-test-header']).toBe('fixed');
  });

  it('sends max_tokens instead for servers that only honour it (Ollama)', async () => {
    const { s, client } = await setup([{ text: 'ok' }], 'max_tokens');
    await client.send(request());
    expect(s.requests[0]!.body).toMatchObject({ max_tokens: 256 });
    expect(
      (s.requests[0]!.body as Record<string, unknown>)['max_completion_tokens'],
    ).toBeUndefined();
  });

  it('adds no organisation or project header from the environment', async () => {
    const saved = { ...process.env };
    process.env['OPENAI_ORG_ID'] = 'org-leak';
    process.env['OPENAI_PROJECT_ID'] = 'proj-leak';
    process.env['OPENAI_API_KEY'] = 'sk-leak';
    try {
      const { s, client } = await setup([{ text: 'ok' }]);
      await client.send(request());
      expect(JSON.stringify(s.requests[0]!.headers)).not.toMatch(/leak/);
    } finally {
      process.env = saved;
    }
  });

  it('translates tool results into tool messages right after the calls, so the API checks pass', async () => {
    const { s, client } = await setup([{ text: 'done' }]);
    const history: Message[] = [
      FIRST,
      {
        role: 'assistant',
        content: [
          { type: 'tool_call', id: 'call_a', name: 'rye_execute', input: { item_id: 'x' } },
          {
            type: 'tool_call',
            id: 'call_b',
            name: 'rye_execute',
            input: '[1,',
            invalid_input: 'not JSON',
          },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Now return.' },
          { type: 'tool_result', call_id: 'call_a', ok: true, content: '{"ok":true}' },
          { type: 'tool_result', call_id: 'call_b', ok: false, content: '{"error":{}}' },
        ],
      },
    ];
    expect((await client.send(request(history))).content).toEqual([{ type: 'text', text: 'done' }]);
    const messages = (s.requests[0]!.body as { messages: Record<string, unknown>[] }).messages;
    expect(messages.map((m) => m['role'])).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'tool',
      'user',
    ]);
    expect(messages[2]).toMatchObject({
      content: null,
      tool_calls: [
        { id: 'call_a', function: { arguments: '{"item_id":"x"}' } },
        { id: 'call_b', function: { arguments: '[1,' } },
      ],
    });
  });

  it('flags malformed and non-object arguments as invalid input, never {}', async () => {
    const { client } = await setup([
      {
        tool_calls: [
          { name: 'rye_execute', raw_arguments: '{"item_id": tru' },
          { name: 'rye_execute', raw_arguments: '["a"]' },
          { name: 'rye_execute', raw_arguments: '' },
        ],
      },
    ]);
    const calls = (await client.send(request())).content;
    expect(calls.map((c) => (c.type === 'tool_call' ? [c.input, c.invalid_input] : null))).toEqual([
      ['{"item_id": tru', expect.stringMatching(/not valid JSON/)],
      ['["a"]', 'arguments are valid JSON but not an object'],
      ['', 'arguments are empty, not a JSON object'],
    ]);
  });

  it('fails the attempt on duplicate call ids, and reports a stream without usage as missing', async () => {
    const { client } = await setup([
      {
        tool_calls: [
          { name: 'rye_execute', input: {}, id: 'call_x' },
          { name: 'rye_execute', input: {}, id: 'call_x' },
        ],
      },
      { text: 'no usage', usage: 'missing' },
    ]);
    expect((await refusal(client.send(request()))).code).toBe('PROVIDER_RESPONSE_INVALID');
    const response = await client.send(request());
    expect(response.usage_problem).toBe('missing');
  });

  it('classifies 429 (transient, retry-after), insufficient_quota (permanent), 401, 503 and an in-stream error', async () => {
    const { s, client } = await setup([
      { fault: 'rate_limit', retry_after_ms: '1500' },
      { fault: 'quota' },
      { fault: 'auth' },
      { fault: 'overloaded' },
      { fault: 'sse_error', after_events: 2, reply: { text: 'partial answer' } },
      { fault: 'reset', after_events: 2, reply: { text: 'partial answer' } },
    ]);
    expect(await refusal(client.send(request()))).toMatchObject({
      code: 'PROVIDER_REQUEST_FAILED',
      details: { status: 429, retryable: true, retry_after_ms: 1500 },
    });
    expect(await refusal(client.send(request()))).toMatchObject({
      code: 'PROVIDER_QUOTA_EXCEEDED',
      details: { status: 429, error_code: 'insufficient_quota', retryable: false },
    });
    expect((await refusal(client.send(request()))).code).toBe('PROVIDER_AUTH_FAILED');
    expect(await refusal(client.send(request()))).toMatchObject({
      details: { status: 503, retryable: true },
    });
    expect(await refusal(client.send(request()))).toMatchObject({
      code: 'PROVIDER_REQUEST_FAILED',
      details: { error_type: 'server_error', retryable: true },
    });
    expect(await refusal(client.send(request()))).toMatchObject({
      code: 'PROVIDER_REQUEST_FAILED',
      details: { retryable: true },
    });
    expect(s.requests).toHaveLength(6);
  });

  it('rejects what the API rejects, naming its message', async () => {
    const { client } = await setup([{ text: 'never' }]);
    const refused = await refusal(
      client.send(
        request([
          FIRST,
          {
            role: 'assistant',
            content: [{ type: 'tool_call', id: 'call_q', name: 'rye_execute', input: {} }],
          },
          { role: 'user', content: [{ type: 'text', text: 'skip it' }] },
        ]),
      ),
    );
    expect(refused.code).toBe('PROVIDER_REQUEST_REJECTED');
    expect(refused.message).toMatch(/did not have response messages: call_q/);
  });

  it('aborts a stalled stream at the deadline', async () => {
    const { client } = await setup([
      { fault: 'stall', after_events: 2, reply: { text: 'half of it' } },
    ]);
    const late = client.send(request(), { deadline: Date.now() + 300 });
    expect(await refusal(late)).toMatchObject({
      code: 'PROVIDER_REQUEST_ABORTED',
      details: { reason: 'deadline' },
    });
  });
});
