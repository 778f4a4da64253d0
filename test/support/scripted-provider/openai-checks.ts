/**
 * The checks the OpenAI Chat Completions API applies before answering, with
 * its 400 wording: required fields, message roles and shapes, every
 * assistant `tool_calls` id answered by `tool` messages right after it, no
 * `tool` message without a preceding call, and `stream_options` only when
 * streaming. (Unlike Anthropic, roles need not alternate.)
 */
import type { ConversationView } from './script.js';

export interface OpenAIRejection {
  readonly status: number;
  readonly type: string;
  readonly message: string;
  readonly param: string | null;
  readonly code: string | null;
}

export interface OpenAIRequestView extends ConversationView {
  readonly stream: boolean;
  readonly includeUsage: boolean;
}

type Json = Record<string, unknown>;

const ROLES = new Set(['system', 'developer', 'user', 'assistant', 'tool']);

export function checkOpenAIRequest(body: unknown): OpenAIRequestView | OpenAIRejection {
  if (!isObject(body)) return bad('We could not parse the JSON body of your request.', null);
  if (typeof body['model'] !== 'string' || body['model'] === '')
    return bad('you must provide a model parameter', null);
  const messages = body['messages'];
  if (!Array.isArray(messages))
    return bad("Missing required parameter: 'messages'.", 'messages', 'missing_required_parameter');
  if (messages.length === 0) return bad("[] is too short - 'messages'", 'messages', 'empty_array');
  const stream = body['stream'] === true;
  if (body['stream_options'] !== undefined && body['stream_options'] !== null && !stream)
    return bad(
      "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
      'stream_options',
    );
  for (const field of ['max_tokens', 'max_completion_tokens']) {
    const value = body[field];
    if (
      value !== undefined &&
      value !== null &&
      (!Number.isSafeInteger(value) || (value as number) < 1)
    )
      return bad(
        `Invalid '${field}': integer below minimum value. Expected a value >= 1.`,
        field,
        'integer_below_min_value',
      );
  }
  const tools = checkTools(body['tools']);
  if (tools !== undefined) return tools;
  const problem = checkMessages(messages);
  if (problem !== undefined) return problem;
  const system = messages
    .filter((m): m is Json => isObject(m) && (m['role'] === 'system' || m['role'] === 'developer'))
    .map((m) => textOf(m['content']))
    .join('\n');
  const firstUser = messages.find((m): m is Json => isObject(m) && m['role'] === 'user');
  const options = body['stream_options'];
  return {
    system,
    // The first text part only, as on the Anthropic route.
    firstUser: firstUser === undefined ? '' : firstTextOf(firstUser['content']),
    stream,
    includeUsage: isObject(options) && options['include_usage'] === true,
  };
}

function checkMessages(messages: unknown[]): OpenAIRejection | undefined {
  let open: Set<string> | undefined;
  let openAt = -1;
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    if (!isObject(m) || !ROLES.has(m['role'] as string))
      return bad(
        `Invalid value: '${String(isObject(m) ? m['role'] : m).slice(0, 40)}'. Supported values are: 'system', 'assistant', 'user', 'tool', and 'developer'.`,
        `messages[${i}].role`,
        'invalid_value',
      );
    const role = m['role'];
    if (role === 'tool') {
      const id = m['tool_call_id'];
      if (typeof id !== 'string')
        return bad(
          "Missing required parameter: 'messages[" + i + "].tool_call_id'.",
          `messages[${i}].tool_call_id`,
          'missing_required_parameter',
        );
      if (open === undefined || !open.has(id))
        return bad(
          "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
          `messages.[${i}].role`,
        );
      open.delete(id);
      if (typeof m['content'] !== 'string' && !Array.isArray(m['content']))
        return bad(
          `Invalid type for 'messages[${i}].content': expected one of a string or array of objects.`,
          `messages[${i}].content`,
          'invalid_type',
        );
      continue;
    }
    if (open !== undefined && open.size > 0) return unanswered(open, openAt);
    open = undefined;
    if (role === 'assistant') {
      const calls = m['tool_calls'];
      if (calls !== undefined && calls !== null) {
        if (!Array.isArray(calls))
          return bad(
            `Invalid type for 'messages[${i}].tool_calls': expected an array.`,
            `messages[${i}].tool_calls`,
            'invalid_type',
          );
        open = new Set();
        openAt = i;
        for (let j = 0; j < calls.length; j++) {
          const call = calls[j];
          const fn = isObject(call) ? call['function'] : undefined;
          if (
            !isObject(call) ||
            typeof call['id'] !== 'string' ||
            call['type'] !== 'function' ||
            !isObject(fn) ||
            typeof fn['name'] !== 'string'
          )
            return bad(
              `Missing required parameter: 'messages[${i}].tool_calls[${j}].function'.`,
              `messages[${i}].tool_calls[${j}]`,
              'missing_required_parameter',
            );
          if (typeof fn['arguments'] !== 'string')
            return bad(
              `Invalid type for 'messages[${i}].tool_calls[${j}].function.arguments': expected a string.`,
              `messages[${i}].tool_calls[${j}].function.arguments`,
              'invalid_type',
            );
          open.add(call['id']);
        }
      } else if (m['content'] === undefined || m['content'] === null) {
        return bad(
          `Invalid value for 'content': expected a string, got null.`,
          `messages.[${i}].content`,
        );
      }
    } else if (typeof m['content'] !== 'string' && !Array.isArray(m['content'])) {
      return bad(
        `Invalid type for 'messages[${i}].content': expected one of a string or array of objects.`,
        `messages[${i}].content`,
        'invalid_type',
      );
    }
  }
  if (open !== undefined && open.size > 0) return unanswered(open, openAt);
  return undefined;
}

function unanswered(open: Set<string>, at: number): OpenAIRejection {
  return bad(
    `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...open].join(', ')}`,
    `messages.[${at}].role`,
  );
}

function checkTools(tools: unknown): OpenAIRejection | undefined {
  if (tools === undefined || tools === null) return undefined;
  if (!Array.isArray(tools))
    return bad("Invalid type for 'tools': expected an array.", 'tools', 'invalid_type');
  for (let i = 0; i < tools.length; i++) {
    const t = tools[i];
    const fn = isObject(t) ? t['function'] : undefined;
    if (!isObject(t) || t['type'] !== 'function' || !isObject(fn))
      return bad(
        `Missing required parameter: 'tools[${i}].function'.`,
        `tools[${i}].function`,
        'missing_required_parameter',
      );
    if (typeof fn['name'] !== 'string' || !/^[a-zA-Z0-9_-]{1,64}$/.test(fn['name']))
      return bad(
        `Invalid 'tools[${i}].function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`,
        `tools[${i}].function.name`,
        'invalid_value',
      );
  }
  return undefined;
}

/** The text of a message's content (a string, or its text parts joined). */
function firstTextOf(content: unknown): string {
  if (!Array.isArray(content)) return textOf(content);
  const first = content.find(
    (p): p is Json => isObject(p) && p['type'] === 'text' && typeof p['text'] === 'string',
  );
  return first === undefined ? '' : (first['text'] as string);
}

export function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((p): p is Json => isObject(p) && p['type'] === 'text' && typeof p['text'] === 'string')
    .map((p) => p['text'] as string)
    .join('\n');
}

function bad(message: string, param: string | null, code: string | null = null): OpenAIRejection {
  return { status: 400, type: 'invalid_request_error', message, param, code };
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
