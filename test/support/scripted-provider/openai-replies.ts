/**
 * OpenAI Chat Completions responses: the `chat.completion` JSON, the
 * `chat.completion.chunk` stream (role, content pieces, tool call pieces by
 * index, the finish chunk, the usage chunk with no choices when asked for,
 * `[DONE]`) and the error body `{error: {message, type, param, code}}`.
 */
import type { SseEvent } from './anthropic-replies.js';
import { pieces, type RenderedReply } from './rendered.js';

/** Neutral stop reasons in OpenAI's words. */
const FINISH: Readonly<Record<string, string>> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  tool_use: 'tool_calls',
  max_tokens: 'length',
  refusal: 'content_filter',
};

export function openAIJson(
  reply: RenderedReply,
  model: string,
  created: number,
): Record<string, unknown> {
  return {
    id: reply.messageId,
    object: 'chat.completion',
    created,
    model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: reply.text === '' ? null : reply.text,
          refusal: null,
          ...(reply.calls.length === 0
            ? {}
            : {
                tool_calls: reply.calls.map((c) => ({
                  id: c.id,
                  type: 'function',
                  function: { name: c.name, arguments: c.args },
                })),
              }),
        },
        logprobs: null,
        finish_reason: FINISH[reply.stop] ?? reply.stop,
      },
    ],
    ...(reply.usage === null ? {} : { usage: usageJson(reply) }),
  };
}

export function openAIEvents(
  reply: RenderedReply,
  model: string,
  created: number,
  chunk: number,
  includeUsage: boolean,
): SseEvent[] {
  const frame = (choices: unknown[], extra: Record<string, unknown> = {}): SseEvent => ({
    event: null,
    data: {
      id: reply.messageId,
      object: 'chat.completion.chunk',
      created,
      model,
      choices,
      ...(includeUsage ? { usage: null } : {}),
      ...extra,
    },
  });
  const choice = (delta: Record<string, unknown>, finish: string | null = null): unknown[] => [
    { index: 0, delta, logprobs: null, finish_reason: finish },
  ];
  const events: SseEvent[] = [frame(choice({ role: 'assistant', content: '', refusal: null }))];
  if (reply.text !== '')
    for (const content of pieces(reply.text, chunk)) events.push(frame(choice({ content })));
  reply.calls.forEach((call, index) => {
    events.push(
      frame(
        choice({
          tool_calls: [
            { index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } },
          ],
        }),
      ),
    );
    for (const args of pieces(call.args, chunk))
      events.push(frame(choice({ tool_calls: [{ index, function: { arguments: args } }] })));
  });
  events.push(frame(choice({}, FINISH[reply.stop] ?? reply.stop)));
  if (includeUsage && reply.usage !== null) events.push(frame([], { usage: usageJson(reply) }));
  events.push({ event: null, data: '[DONE]' });
  return events;
}

export function openAIError(
  type: string,
  message: string,
  param: string | null = null,
  code: string | null = null,
): Record<string, unknown> {
  return { error: { message, type, param, code } };
}

function usageJson(reply: RenderedReply): Record<string, unknown> {
  const usage = reply.usage!;
  // OpenAI counts cached tokens inside prompt_tokens.
  const prompt = usage.in + (usage.cache_r ?? 0);
  return {
    prompt_tokens: prompt,
    completion_tokens: usage.out,
    total_tokens: prompt + usage.out,
    prompt_tokens_details: { cached_tokens: usage.cache_r ?? 0 },
    completion_tokens_details: { reasoning_tokens: 0 },
  };
}
