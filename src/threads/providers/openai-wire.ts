/**
 * The neutral request in the OpenAI Chat Completions wire format. A user
 * message's tool results become `tool` messages that directly follow the
 * assistant's `tool_calls` (the API wants every call answered before anything
 * else); its text becomes a user message after them.
 */
import type OpenAI from 'openai';
import { RyeError } from '../../errors/index.js';
import type { ContentPart, Message } from '../conversation/index.js';
import type { ProviderRequest } from './types.js';

type Param = OpenAI.Chat.ChatCompletionMessageParam;
export type OpenAIBody = OpenAI.Chat.ChatCompletionCreateParamsStreaming;

/** The streaming request body for `POST /chat/completions`, usage included. */
export function toOpenAIBody(
  request: ProviderRequest,
  maxTokensField: 'max_completion_tokens' | 'max_tokens' = 'max_completion_tokens',
): OpenAIBody {
  const messages: Param[] =
    request.system === '' ? [] : [{ role: 'system', content: request.system }];
  request.messages.forEach((message, index) => messages.push(...toParams(message, index)));
  return {
    model: request.model,
    messages,
    ...(request.tools.length === 0
      ? {}
      : {
          tools: request.tools.map((tool) => ({
            type: 'function' as const,
            function: {
              name: tool.name,
              description: tool.description,
              parameters: tool.input_schema,
            },
          })),
        }),
    [maxTokensField]: request.max_tokens,
    stream: true,
    stream_options: { include_usage: true },
  };
}

function toParams(message: Message, index: number): Param[] {
  if (message.role === 'user') {
    const out: Param[] = [];
    const texts: string[] = [];
    for (const part of message.content) {
      if (part.type === 'tool_result')
        out.push({ role: 'tool', tool_call_id: part.call_id, content: part.content });
      else if (part.type === 'text') texts.push(part.text);
      else throw misplaced(part, index);
    }
    const text = texts.filter((t) => t !== '').join('\n\n');
    if (text !== '' || out.length === 0) out.push({ role: 'user', content: text });
    return out;
  }
  const texts: string[] = [];
  const calls: OpenAI.Chat.ChatCompletionMessageFunctionToolCall[] = [];
  for (const part of message.content) {
    if (part.type === 'text') texts.push(part.text);
    else if (part.type === 'tool_call')
      calls.push({
        id: part.id,
        type: 'function',
        function: {
          name: part.name,
          // A call with unusable arguments is echoed exactly as the model wrote it.
          arguments:
            part.invalid_input === undefined ? JSON.stringify(part.input) : String(part.input),
        },
      });
    else throw misplaced(part, index);
  }
  const text = texts.join('');
  return [
    {
      role: 'assistant',
      content: text === '' ? null : text,
      ...(calls.length === 0 ? {} : { tool_calls: calls }),
    },
  ];
}

function misplaced(part: ContentPart, index: number): RyeError {
  return new RyeError(
    'INTERNAL_ERROR',
    `Cannot translate message ${index}: a ${part.type} part is in the wrong role`,
    { index, part: part.type },
  );
}
