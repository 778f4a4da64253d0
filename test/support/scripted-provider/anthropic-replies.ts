/**
 * Anthropic Messages responses: the JSON message, the SSE event sequence
 * (message_start, content_block_start/delta/stop, ping, message_delta,
 * message_stop) and the error body `{type: "error", error: {type, message}}`.
 */
import { pieces, type RenderedReply } from './rendered.js';

export interface SseEvent {
  /** `null` for OpenAI's unnamed `data:` lines. */
  readonly event: string | null;
  /** An object is JSON-encoded; a string is sent verbatim (`[DONE]`, garbage). */
  readonly data: unknown;
}

export function anthropicJson(reply: RenderedReply, model: string): Record<string, unknown> {
  return {
    id: reply.messageId,
    type: 'message',
    role: 'assistant',
    model,
    content: [
      ...(reply.text === '' ? [] : [{ type: 'text', text: reply.text }]),
      ...reply.calls.map((c) => ({
        type: 'tool_use',
        id: c.id,
        name: c.name,
        input: inputOf(c.args),
      })),
    ],
    stop_reason: reply.stop,
    stop_sequence: null,
    ...(reply.usage === null ? {} : { usage: usageJson(reply) }),
  };
}

export function anthropicEvents(reply: RenderedReply, model: string, chunk: number): SseEvent[] {
  const start = {
    id: reply.messageId,
    type: 'message',
    role: 'assistant',
    model,
    content: [],
    container: null,
    diagnostics: null,
    stop_details: null,
    stop_reason: null,
    stop_sequence: null,
    ...(reply.usage === null
      ? {}
      : {
          usage: {
            input_tokens: reply.usage.in,
            cache_creation_input_tokens: reply.usage.cache_w ?? 0,
            cache_read_input_tokens: reply.usage.cache_r ?? 0,
            output_tokens: 1,
          },
        }),
  };
  const events: SseEvent[] = [
    { event: 'message_start', data: { type: 'message_start', message: start } },
  ];
  let index = 0;
  if (reply.text !== '') {
    events.push(blockStart(index, { type: 'text', text: '' }));
    events.push({ event: 'ping', data: { type: 'ping' } });
    for (const text of pieces(reply.text, chunk))
      events.push(blockDelta(index, { type: 'text_delta', text }));
    events.push(blockStop(index));
    index += 1;
  }
  for (const call of reply.calls) {
    events.push(
      blockStart(index, {
        type: 'tool_use',
        id: call.id,
        name: call.name,
        input: {},
        caller: { type: 'direct' },
      }),
    );
    for (const partial_json of pieces(call.args, chunk))
      events.push(blockDelta(index, { type: 'input_json_delta', partial_json }));
    events.push(blockStop(index));
    index += 1;
  }
  events.push({
    event: 'message_delta',
    data: {
      type: 'message_delta',
      delta: { stop_reason: reply.stop, stop_sequence: null },
      ...(reply.usage === null ? {} : { usage: usageJson(reply) }),
    },
  });
  events.push({ event: 'message_stop', data: { type: 'message_stop' } });
  return events;
}

export function anthropicError(
  type: string,
  message: string,
  requestId: string,
): Record<string, unknown> {
  return { type: 'error', error: { type, message }, request_id: requestId };
}

function usageJson(reply: RenderedReply): Record<string, number> {
  const usage = reply.usage!;
  return {
    input_tokens: usage.in,
    cache_creation_input_tokens: usage.cache_w ?? 0,
    cache_read_input_tokens: usage.cache_r ?? 0,
    output_tokens: usage.out,
  };
}

/** Non-streamed tool input must be an object; a deliberately bad argument text travels as a string. */
function inputOf(args: string): unknown {
  try {
    return JSON.parse(args) as unknown;
  } catch {
    return args;
  }
}

function blockStart(index: number, content_block: Record<string, unknown>): SseEvent {
  return {
    event: 'content_block_start',
    data: { type: 'content_block_start', index, content_block },
  };
}

function blockDelta(index: number, delta: Record<string, unknown>): SseEvent {
  return { event: 'content_block_delta', data: { type: 'content_block_delta', index, delta } };
}

function blockStop(index: number): SseEvent {
  return { event: 'content_block_stop', data: { type: 'content_block_stop', index } };
}
