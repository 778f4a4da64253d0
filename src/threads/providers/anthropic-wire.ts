/**
 * The neutral request in the Anthropic Messages wire format. Tool results
 * lead their user message (the API wants each `tool_use` answered by a
 * `tool_result` in the very next message); empty text blocks, which the API
 * refuses, are dropped.
 */
import type Anthropic from '@anthropic-ai/sdk';
import { RyeError } from '../../errors/index.js';
import type { ContentPart, Message } from '../conversation/index.js';
import type { ProviderRequest } from './types.js';

export type AnthropicBody = Anthropic.MessageCreateParamsStreaming;

/** The streaming request body for `POST /v1/messages`. */
export function toAnthropicBody(request: ProviderRequest): AnthropicBody {
  return {
    model: request.model,
    max_tokens: request.max_tokens,
    ...(request.system === '' ? {} : { system: request.system }),
    messages: request.messages.map(toMessageParam),
    ...(request.tools.length === 0
      ? {}
      : {
          tools: request.tools.map((tool) => ({
            name: tool.name,
            description: tool.description,
            input_schema: tool.input_schema as Anthropic.Tool.InputSchema,
          })),
        }),
    stream: true,
  };
}

function toMessageParam(message: Message, index: number): Anthropic.MessageParam {
  if (message.role === 'user') {
    const results: Anthropic.ToolResultBlockParam[] = [];
    const texts: Anthropic.TextBlockParam[] = [];
    for (const part of message.content) {
      if (part.type === 'tool_result')
        results.push({
          type: 'tool_result',
          tool_use_id: part.call_id,
          content: part.content,
          ...(part.ok ? {} : { is_error: true }),
        });
      else if (part.type === 'text') {
        if (part.text !== '') texts.push({ type: 'text', text: part.text });
      } else throw misplaced(part, index);
    }
    return { role: 'user', content: [...results, ...texts] };
  }
  const blocks: (Anthropic.TextBlockParam | Anthropic.ToolUseBlockParam)[] = [];
  for (const part of message.content) {
    if (part.type === 'text') {
      if (part.text !== '') blocks.push({ type: 'text', text: part.text });
    } else if (part.type === 'tool_call') {
      blocks.push({ type: 'tool_use', id: part.id, name: part.name, input: echoInput(part) });
    } else throw misplaced(part, index);
  }
  return { role: 'assistant', content: blocks };
}

/**
 * A call whose arguments were not an object is echoed with its raw text in a
 * wrapper (the API needs an object); its error result tells the model why.
 */
function echoInput(part: Extract<ContentPart, { type: 'tool_call' }>): unknown {
  return part.invalid_input === undefined ? part.input : { invalid_arguments: String(part.input) };
}

function misplaced(part: ContentPart, index: number): RyeError {
  return new RyeError(
    'INTERNAL_ERROR',
    `Cannot translate message ${index}: a ${part.type} part is in the wrong role`,
    { index, part: part.type },
  );
}
