/**
 * Certification: the official SDK clients drive the scripted provider,
 * streaming and not, through tool calls, usage, the APIs' 400 checks, auth
 * and transient errors. If the SDKs parse what it sends, and raise their own
 * error classes with the right status, it speaks the real wire formats.
 */
import Anthropic, { APIError as AnthropicAPIError } from '@anthropic-ai/sdk';
import OpenAI, { type APIError as OpenAIAPIError } from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { startScriptedProvider, type ScriptEntry, type ScriptedProvider } from './index.js';

const SYSTEM = '<directive name="build_crud_app" version="1.0.0">Build it.</directive>';
const TOOLS = [
  {
    name: 'rye_load',
    description: 'Load an item',
    input_schema: {
      type: 'object' as const,
      properties: { item_type: { type: 'string' }, item_id: { type: 'string' } },
    },
  },
];

let server: ScriptedProvider | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(script: ScriptEntry[], extra = {}): Promise<ScriptedProvider> {
  server = await startScriptedProvider({ script, ...extra });
  return server;
}

function anthropic(s: ScriptedProvider, maxRetries = 0): Anthropic {
  return new Anthropic({ apiKey: 'test-key', authToken: null, baseURL: s.url, maxRetries });
}

function openai(s: ScriptedProvider, maxRetries = 0): OpenAI {
  return new OpenAI({
    apiKey: 'test-key',
    baseURL: s.openaiBaseUrl,
    maxRetries,
    organization: null,
    project: null,
  });
}

const LOAD_CALL = { name: 'rye_load', input: { item_type: 'knowledge', item_id: 'api-design' } };

describe('scripted provider, driven by @anthropic-ai/sdk', () => {
  it('answers a plain request with a message the SDK parses, usage included', async () => {
    const s = await start([
      { turns: [{ text: 'Hello there', usage: { in: 12, out: 3, cache_r: 4 } }] },
    ]);
    const message = await anthropic(s).messages.create({
      model: 'claude-sonnet-4-20250514',
      max_tokens: 100,
      system: SYSTEM,
      messages: [{ role: 'user', content: '{"name":"x"}' }],
    });
    expect(message.content).toEqual([{ type: 'text', text: 'Hello there' }]);
    expect(message.stop_reason).toBe('end_turn');
    expect(message.usage).toMatchObject({
      input_tokens: 12,
      output_tokens: 3,
      cache_read_input_tokens: 4,
    });
    expect(message.id).toMatch(/^msg_/);
    expect(s.requests[0]!.headers['authorization']).toBe('Bearer test-key');
    expect(s.requests[0]!.headers['anthropic-version']).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(s.problems).toEqual([]);
  });

  it('streams text and a tool call that MessageStream assembles, then takes the tool result', async () => {
    const s = await start([
      {
        match: { directive: 'build_crud_app' },
        turns: [{ text: 'Loading the design notes.', tool_calls: [LOAD_CALL] }, { text: 'Done.' }],
      },
    ]);
    const client = anthropic(s);
    const deltas: string[] = [];
    const stream = client.messages.stream({
      model: 'claude-sonnet-4-20250514',
      max_tokens: 100,
      system: SYSTEM,
      tools: TOOLS,
      messages: [{ role: 'user', content: '{"name":"x"}' }],
    });
    stream.on('text', (text) => deltas.push(text));
    const first = await stream.finalMessage();
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toBe('Loading the design notes.');
    expect(first.stop_reason).toBe('tool_use');
    const call = first.content.find((b) => b.type === 'tool_use');
    expect(call).toMatchObject({ name: 'rye_load', input: LOAD_CALL.input });
    expect(first.usage.output_tokens).toBeGreaterThan(0);

    const second = await client.messages.create({
      model: 'claude-sonnet-4-20250514',
      max_tokens: 100,
      system: SYSTEM,
      tools: TOOLS,
      messages: [
        { role: 'user', content: '{"name":"x"}' },
        { role: 'assistant', content: first.content },
        {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: call!.id, content: '{"ok":true}' }],
        },
      ],
    });
    expect(second.content).toEqual([{ type: 'text', text: 'Done.' }]);
    expect(s.requests.map((r) => r.turn)).toEqual([0, 1]);
  });

  it('refuses what the real API refuses, and the SDK raises BadRequestError', async () => {
    const s = await start([{ turns: [{ text: 'never' }] }]);
    const client = anthropic(s);
    const base = { model: 'm', max_tokens: 10, system: SYSTEM };
    const unanswered = client.messages.create({
      ...base,
      messages: [
        { role: 'user', content: 'hi' },
        {
          role: 'assistant',
          content: [{ type: 'tool_use', id: 'toolu_1', name: 'rye_load', input: {} }],
        },
        { role: 'user', content: 'and?' },
      ],
    });
    await expect(unanswered).rejects.toBeInstanceOf(Anthropic.BadRequestError);
    await expect(unanswered).rejects.toThrow(
      /tool_use` ids were found without `tool_result` blocks immediately after: toolu_1/,
    );
    const twice = client.messages.create({
      ...base,
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'user', content: 'again' },
      ],
    });
    await expect(twice).rejects.toThrow(/roles must alternate/);
    const orphan = client.messages.create({
      ...base,
      messages: [
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_9', content: 'x' }] },
      ],
    });
    await expect(orphan).rejects.toThrow(/unexpected `tool_use_id`/);
    const noMax = fetch(`${s.url}/v1/messages`, {
      method: 'POST',
      headers: {
        authorization: 'Bearer test-key',
        'anthropic-version': '2026-10-21',
        'content-type': 'application/json',
      },
      body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }),
    });
    const answer = await noMax;
    expect(answer.status).toBe(400);
    expect(await answer.json()).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error', message: 'max_tokens: Field required' },
    });
    // Rejected requests never consume a scripted turn.
    expect(s.requests.every((r) => r.turn === undefined)).toBe(true);
  });

  it('answers a wrong key with 401, which the SDK raises as AuthenticationError', async () => {
    const s = await start([{ turns: [{ text: 'never' }] }]);
    const client = new Anthropic({
      apiKey: 'wrong',
      authToken: null,
      baseURL: s.url,
      maxRetries: 0,
    });
    const call = client.messages.create({
      model: 'm',
      max_tokens: 5,
      messages: [{ role: 'user', content: 'hi' }],
    });
    await expect(call).rejects.toBeInstanceOf(Anthropic.AuthenticationError);
  });

  it('takes the key as x-api-key when told to, set by hand with authorization omitted', async () => {
    const s = await start([{ turns: [{ text: 'ok' }] }], { anthropicAuth: 'x-api-key' });
    const bearer = anthropic(s);
    const ask = (client: Anthropic) =>
      client.messages.create({
        model: 'm',
        max_tokens: 5,
        messages: [{ role: 'user', content: 'hi' }],
      });
    await expect(ask(bearer)).rejects.toThrow(/x-api-key header is required/);
    const client = new Anthropic({
      apiKey: 'test-key',
      authToken: null,
      baseURL: s.url,
      maxRetries: 0,
      defaultHeaders: { 'x-api-key': 'test-key', authorization: null },
    });
    await ask(client);
    expect(s.requests[1]!.headers['x-api-key']).toBe('test-key');
    expect(s.requests[1]!.headers['authorization']).toBeUndefined();
  });

  it('sends 429 with retry-after, 529 and 500 with the status the SDK classes expect', async () => {
    const s = await start([
      {
        turns: [
          { fault: 'rate_limit', retry_after: '7' },
          { fault: 'overloaded' },
          { fault: 'server_error' },
          { fault: 'quota' },
        ],
      },
    ]);
    const client = anthropic(s);
    const ask = () =>
      client.messages.create({
        model: 'm',
        max_tokens: 5,
        messages: [{ role: 'user', content: 'hi' }],
      });
    const limited = await ask().catch((e: unknown) => e);
    expect(limited).toBeInstanceOf(Anthropic.RateLimitError);
    expect((limited as AnthropicAPIError).headers?.get('retry-after')).toBe('7');
    const overloaded = await ask().catch((e: unknown) => e);
    expect((overloaded as AnthropicAPIError).status).toBe(529);
    expect((overloaded as AnthropicAPIError).type).toBe('overloaded_error');
    expect(await ask().catch((e: unknown) => e)).toBeInstanceOf(Anthropic.InternalServerError);
    const quota = await ask().catch((e: unknown) => e);
    expect((quota as AnthropicAPIError).status).toBe(402);
    expect((quota as AnthropicAPIError).type).toBe('billing_error');
  });

  it('is retried by the SDK after a 429 that says retry-after-ms, the next turn answering', async () => {
    const s = await start([
      { turns: [{ fault: 'rate_limit', retry_after_ms: '20' }, { text: 'after the wait' }] },
    ]);
    const message = await anthropic(s, 1).messages.create({
      model: 'm',
      max_tokens: 5,
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(message.content).toEqual([{ type: 'text', text: 'after the wait' }]);
    expect(s.requests.map((r) => r.status)).toEqual([429, 200]);
  });

  it('fails a stream with an SSE error event and with a mid-stream reset', async () => {
    const s = await start([
      {
        turns: [
          { fault: 'sse_error', after_events: 3, reply: { text: 'partial answer here' } },
          { fault: 'reset', after_events: 3, reply: { text: 'partial answer here' } },
        ],
      },
    ]);
    const client = anthropic(s);
    const drain = async (): Promise<unknown> => {
      const stream = await client.messages.create({
        model: 'm',
        max_tokens: 5,
        stream: true,
        messages: [{ role: 'user', content: 'hi' }],
      });
      const seen: string[] = [];
      try {
        for await (const event of stream) seen.push(event.type);
      } catch (error) {
        return { error, seen };
      }
      return { seen };
    };
    const sseError = (await drain()) as { error: AnthropicAPIError; seen: string[] };
    expect(sseError.error).toBeInstanceOf(AnthropicAPIError);
    expect(sseError.error.type).toBe('overloaded_error');
    expect(sseError.seen).toEqual(['message_start', 'content_block_start']);
    const reset = (await drain()) as { error?: unknown; seen: string[] };
    expect(reset.error).toBeDefined();
    expect(reset.seen).not.toContain('message_stop');
  });

  it('sends no usage when the script says so, and garbage partial_json verbatim', async () => {
    const s = await start([
      {
        turns: [
          { text: 'no usage', usage: 'missing' },
          { tool_calls: [{ name: 'rye_load', raw_arguments: '{"item_type": "knowl' }] },
        ],
      },
    ]);
    const client = anthropic(s);
    const plain = await client.messages.create({
      model: 'm',
      max_tokens: 5,
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(plain.usage).toBeUndefined();
    const stream = await client.messages.create({
      model: 'm',
      max_tokens: 5,
      stream: true,
      messages: [{ role: 'user', content: 'hi' }],
    });
    let json = '';
    for await (const event of stream)
      if (event.type === 'content_block_delta' && event.delta.type === 'input_json_delta')
        json += event.delta.partial_json;
    expect(json).toBe('{"item_type": "knowl');
  });

  it('answers with 500 when the script runs out, and lists the problem', async () => {
    const s = await start([{ turns: [{ text: 'only one' }] }]);
    const client = anthropic(s);
    const ask = () =>
      client.messages.create({
        model: 'm',
        max_tokens: 5,
        messages: [{ role: 'user', content: 'hi' }],
      });
    await ask();
    await expect(ask()).rejects.toBeInstanceOf(Anthropic.InternalServerError);
    expect(s.problems).toEqual([expect.stringMatching(/ran out after 1 turns/)]);
  });
});

describe('scripted provider, driven by openai', () => {
  it('answers a plain request with a chat.completion the SDK parses, usage included', async () => {
    const s = await start([{ turns: [{ text: 'Hello', usage: { in: 10, out: 2, cache_r: 5 } }] }]);
    const completion = await openai(s).chat.completions.create({
      model: 'gpt-4.1',
      messages: [
        { role: 'system', content: SYSTEM },
        { role: 'user', content: '{"name":"x"}' },
      ],
    });
    expect(completion.choices[0]!.message.content).toBe('Hello');
    expect(completion.choices[0]!.finish_reason).toBe('stop');
    expect(completion.usage).toMatchObject({ prompt_tokens: 15, completion_tokens: 2 });
    expect(completion.usage?.prompt_tokens_details?.cached_tokens).toBe(5);
    expect(s.requests[0]!.headers['authorization']).toBe('Bearer test-key');
  });

  it('streams tool calls by index that the SDK stream helper assembles, usage last', async () => {
    const s = await start([
      {
        match: { directive: 'build_crud_app', first_user: '{"name":"x"}' },
        turns: [
          {
            text: 'Two calls.',
            tool_calls: [
              LOAD_CALL,
              { name: 'rye_load', input: { item_type: 'tool', item_id: 'build' } },
            ],
          },
        ],
      },
    ]);
    const stream = openai(s).chat.completions.stream({
      model: 'gpt-4.1',
      messages: [
        { role: 'system', content: SYSTEM },
        { role: 'user', content: '{"name":"x"}' },
      ],
      tools: TOOLS.map((t) => ({
        type: 'function' as const,
        function: { name: t.name, parameters: t.input_schema },
      })),
      stream_options: { include_usage: true },
    });
    const completion = await stream.finalChatCompletion();
    const message = completion.choices[0]!.message;
    expect(message.content).toBe('Two calls.');
    expect(
      message.tool_calls?.map((c) =>
        c.type === 'function' ? JSON.parse(c.function.arguments) : null,
      ),
    ).toEqual([LOAD_CALL.input, { item_type: 'tool', item_id: 'build' }]);
    expect(completion.choices[0]!.finish_reason).toBe('tool_calls');
    expect(completion.usage?.completion_tokens).toBeGreaterThan(0);
  });

  it('refuses unanswered tool calls, orphan tool messages and stream_options without stream', async () => {
    const s = await start([{ turns: [{ text: 'never' }] }]);
    const client = openai(s);
    const call = {
      id: 'call_1',
      type: 'function' as const,
      function: { name: 'rye_load', arguments: '{}' },
    };
    const unanswered = client.chat.completions.create({
      model: 'm',
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: null, tool_calls: [call] },
        { role: 'user', content: 'and?' },
      ],
    });
    await expect(unanswered).rejects.toBeInstanceOf(OpenAI.BadRequestError);
    await expect(unanswered).rejects.toThrow(/did not have response messages: call_1/);
    const orphan = client.chat.completions.create({
      model: 'm',
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'tool', tool_call_id: 'call_9', content: 'x' },
      ],
    });
    await expect(orphan).rejects.toThrow(
      /must be a response to a preceeding message with 'tool_calls'/,
    );
    const options = client.chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'hi' }],
      stream_options: { include_usage: true },
    });
    await expect(options).rejects.toThrow(/only allowed when 'stream' is enabled/);
  });

  it('maps auth, rate limit, quota and overload to the SDK error classes', async () => {
    const s = await start([
      {
        turns: [
          { fault: 'rate_limit', retry_after: '3' },
          { fault: 'quota' },
          { fault: 'overloaded' },
        ],
      },
    ]);
    const wrong = new OpenAI({ apiKey: 'wrong', baseURL: s.openaiBaseUrl, maxRetries: 0 });
    await expect(
      wrong.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }),
    ).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
    const client = openai(s);
    const ask = () =>
      client.chat.completions
        .create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] })
        .then(
          () => {
            throw new Error('expected a failure');
          },
          (e: unknown) => e as OpenAIAPIError,
        );
    const limited = await ask();
    expect(limited).toBeInstanceOf(OpenAI.RateLimitError);
    expect(limited.headers?.get('retry-after')).toBe('3');
    const quota = await ask();
    expect(quota).toBeInstanceOf(OpenAI.RateLimitError);
    expect(quota.code).toBe('insufficient_quota');
    expect(await ask()).toBeInstanceOf(OpenAI.InternalServerError);
  });

  it('is retried by the SDK after a 429 that says retry-after-ms', async () => {
    const s = await start([
      { turns: [{ fault: 'rate_limit', retry_after_ms: '20' }, { text: 'ok now' }] },
    ]);
    const completion = await openai(s, 1).chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(completion.choices[0]!.message.content).toBe('ok now');
    expect(s.requests.map((r) => r.status)).toEqual([429, 200]);
  });

  it('carries an error inside a 200 stream, which the SDK raises as APIError', async () => {
    const s = await start([
      { turns: [{ fault: 'sse_error', after_events: 2, reply: { text: 'partial text' } }] },
    ]);
    const stream = await openai(s).chat.completions.create({
      model: 'm',
      stream: true,
      messages: [{ role: 'user', content: 'hi' }],
    });
    const error = await (async () => {
      for await (const _chunk of stream) {
        /* drain */
      }
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as OpenAIAPIError).type).toBe('server_error');
  });
});

describe('scripted provider cursors', () => {
  it('keeps one cursor per conversation, so interleaved children replay deterministically', async () => {
    const s = await start([
      {
        match: { directive: 'implement_feature', first_user_includes: '"a"' },
        turns: [{ text: 'a1' }, { text: 'a2' }],
      },
      {
        match: { directive: 'implement_feature', first_user_includes: '"b"' },
        turns: [{ text: 'b1' }, { text: 'b2' }],
      },
    ]);
    const client = anthropic(s);
    const system = '<directive name="implement_feature">x</directive>';
    const ask = async (feature: string, history: Anthropic.MessageParam[] = []) => {
      const first = { role: 'user' as const, content: JSON.stringify({ feature }) };
      const message = await client.messages.create({
        model: 'm',
        max_tokens: 5,
        system,
        messages: [first, ...history],
      });
      return (message.content[0] as Anthropic.TextBlock).text;
    };
    const [b1, a1] = await Promise.all([ask('b'), ask('a')]);
    const follow = (text: string): Anthropic.MessageParam[] => [
      { role: 'assistant', content: text },
      { role: 'user', content: 'next' },
    ];
    const [a2, b2] = await Promise.all([ask('a', follow(a1)), ask('b', follow(b1))]);
    expect([a1, a2, b1, b2]).toEqual(['a1', 'a2', 'b1', 'b2']);
  });
});
