/**
 * The checks the Anthropic Messages API applies before answering, with its
 * 400 wording: the version header, required fields, user-first alternating
 * roles, block shapes per role, and every `tool_use` answered by a
 * `tool_result` in the very next message (and no result without its call).
 */
import type { ConversationView } from './script.js';

export interface Rejection {
  readonly status: number;
  readonly type: string;
  readonly message: string;
}

export interface AnthropicRequestView extends ConversationView {
  readonly stream: boolean;
}

type Json = Record<string, unknown>;

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,128}$/;
const TOOL_ID = /^[a-zA-Z0-9_-]+$/;

/** The request's view, or the 400 the real API would send. */
export function checkAnthropicRequest(
  headers: Readonly<Record<string, string | undefined>>,
  body: unknown,
): AnthropicRequestView | Rejection {
  if (headers['anthropic-version'] === undefined)
    return bad('anthropic-version: header is required');
  if (!isObject(body)) return bad('There was an error parsing the body of your request');
  if (typeof body['model'] !== 'string' || body['model'] === '')
    return bad('model: Field required');
  const maxTokens = body['max_tokens'];
  if (maxTokens === undefined) return bad('max_tokens: Field required');
  if (!Number.isSafeInteger(maxTokens) || (maxTokens as number) < 1)
    return bad('max_tokens: Input should be greater than or equal to 1');
  if (body['stream'] !== undefined && typeof body['stream'] !== 'boolean')
    return bad('stream: Input should be a valid boolean');
  const system = systemText(body['system']);
  if (system === undefined)
    return bad('system: Input should be a valid string or list of text blocks');
  const tools = checkTools(body['tools']);
  if (tools !== undefined) return tools;
  const messages = body['messages'];
  if (!Array.isArray(messages)) return bad('messages: Field required');
  if (messages.length === 0) return bad('messages: at least one message is required');
  const problem = checkMessages(messages);
  if (problem !== undefined) return problem;
  return {
    system,
    // The first text block only: hook notes and compaction summaries merged
    // into the first message keep the conversation (and its cursor).
    firstUser: firstTextOf((messages[0] as Json)['content']),
    stream: body['stream'] === true,
  };
}

function checkMessages(messages: unknown[]): Rejection | undefined {
  const seenIds = new Set<string>();
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    if (!isObject(m)) return bad(`messages.${i}: Input should be a valid dictionary`);
    const role = m['role'];
    if (role !== 'user' && role !== 'assistant')
      return bad(`messages.${i}.role: Input should be 'user' or 'assistant'`);
    if (i === 0 && role !== 'user') return bad('messages: first message must use the "user" role');
    const prev = i > 0 ? (messages[i - 1] as Json)['role'] : undefined;
    if (prev === role)
      return bad(
        `messages: roles must alternate between "user" and "assistant", but found multiple "${role}" roles in a row`,
      );
    const blocks = blocksOf(m['content']);
    if (blocks === undefined) return bad(`messages.${i}.content: Input should be a valid list`);
    for (let j = 0; j < blocks.length; j++) {
      const problem = checkBlock(blocks[j], role, `messages.${i}.content.${j}`, seenIds);
      if (problem !== undefined) return problem;
    }
    if (blocks.length === 0 && !(role === 'assistant' && i === messages.length - 1))
      return bad(
        `messages.${i}: all messages must have non-empty content except for the optional final assistant message`,
      );
    const problem = checkPairing(messages, i, blocks);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

function checkBlock(
  block: unknown,
  role: string,
  at: string,
  seenIds: Set<string>,
): Rejection | undefined {
  if (!isObject(block)) return bad(`${at}: Input should be a valid dictionary`);
  switch (block['type']) {
    case 'text':
      if (typeof block['text'] !== 'string') return bad(`${at}.text: Field required`);
      if (block['text'] === '') return bad(`${at}.text: text content blocks must be non-empty`);
      return undefined;
    case 'tool_use': {
      if (role !== 'assistant')
        return bad(`${at}: tool_use blocks can only be in assistant messages`);
      const id = block['id'];
      if (typeof id !== 'string' || !TOOL_ID.test(id))
        return bad(`${at}.id: String should match pattern '^[a-zA-Z0-9_-]+$'`);
      if (seenIds.has(id)) return bad(`${at}: \`tool_use\` ids must be unique`);
      seenIds.add(id);
      if (typeof block['name'] !== 'string') return bad(`${at}.name: Field required`);
      if (!isObject(block['input'])) return bad(`${at}.input: Input should be a valid dictionary`);
      return undefined;
    }
    case 'tool_result': {
      if (role !== 'user') return bad(`${at}: tool_result blocks can only be in user messages`);
      if (typeof block['tool_use_id'] !== 'string') return bad(`${at}.tool_use_id: Field required`);
      const content = block['content'];
      if (content !== undefined && typeof content !== 'string' && !Array.isArray(content))
        return bad(`${at}.content: Input should be a valid string or list`);
      if (block['is_error'] !== undefined && typeof block['is_error'] !== 'boolean')
        return bad(`${at}.is_error: Input should be a valid boolean`);
      return undefined;
    }
    default:
      return bad(
        `${at}.type: Input tag '${String(block['type']).slice(0, 40)}' is not a supported block type`,
      );
  }
}

/** Every tool_use answered in the next message; every tool_result answering the previous one. */
function checkPairing(messages: unknown[], i: number, blocks: Json[]): Rejection | undefined {
  const m = messages[i] as Json;
  if (m['role'] === 'assistant') {
    const ids = blocks.filter((b) => b['type'] === 'tool_use').map((b) => b['id'] as string);
    if (ids.length === 0) return undefined;
    const next = messages[i + 1];
    const answered = new Set(
      (isObject(next) ? (blocksOf(next['content']) ?? []) : [])
        .filter((b) => b['type'] === 'tool_result')
        .map((b) => b['tool_use_id']),
    );
    const missing = ids.filter((id) => !answered.has(id));
    if (missing.length > 0)
      return bad(
        `messages.${i}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`,
      );
    return undefined;
  }
  const prev = i > 0 ? (messages[i - 1] as Json) : undefined;
  const calls = new Set(
    (prev === undefined ? [] : (blocksOf(prev['content']) ?? []))
      .filter((b) => b['type'] === 'tool_use')
      .map((b) => b['id']),
  );
  for (let j = 0; j < blocks.length; j++) {
    const b = blocks[j]!;
    if (b['type'] === 'tool_result' && !calls.has(b['tool_use_id']))
      return bad(
        `messages.${i}.content.${j}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${String(b['tool_use_id'])}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`,
      );
  }
  return undefined;
}

function checkTools(tools: unknown): Rejection | undefined {
  if (tools === undefined) return undefined;
  if (!Array.isArray(tools)) return bad('tools: Input should be a valid list');
  const names = new Set<unknown>();
  for (let i = 0; i < tools.length; i++) {
    const t = tools[i];
    if (!isObject(t)) return bad(`tools.${i}: Input should be a valid dictionary`);
    if (typeof t['name'] !== 'string' || !TOOL_NAME.test(t['name']))
      return bad(`tools.${i}.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'`);
    if (names.has(t['name'])) return bad('tools: Tool names must be unique.');
    names.add(t['name']);
    const schema = t['input_schema'];
    if (!isObject(schema) || schema['type'] !== 'object')
      return bad(`tools.${i}.custom.input_schema.type: Input should be 'object'`);
  }
  return undefined;
}

function systemText(system: unknown): string | undefined {
  if (system === undefined) return '';
  if (typeof system === 'string') return system;
  if (!Array.isArray(system)) return undefined;
  const texts = system.map((b) => (isObject(b) && b['type'] === 'text' ? b['text'] : undefined));
  return texts.every((t) => typeof t === 'string') ? texts.join('\n') : undefined;
}

function blocksOf(content: unknown): Json[] | undefined {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  if (!Array.isArray(content)) return undefined;
  return content as Json[];
}

/** The text of a message's content (its text blocks, joined). */
function firstTextOf(content: unknown): string {
  const first = (blocksOf(content) ?? []).find(
    (b) => isObject(b) && b['type'] === 'text' && typeof b['text'] === 'string',
  );
  return first === undefined ? '' : ((first as Json)['text'] as string);
}

export function textOf(content: unknown): string {
  return (blocksOf(content) ?? [])
    .filter((b) => isObject(b) && b['type'] === 'text' && typeof b['text'] === 'string')
    .map((b) => b['text'] as string)
    .join('\n');
}

function bad(message: string): Rejection {
  return { status: 400, type: 'invalid_request_error', message };
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
