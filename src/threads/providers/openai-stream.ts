/**
 * Folds an OpenAI Chat Completions chunk stream into one response. Chunks are
 * untrusted: every field is checked here. Tool calls are keyed by their
 * `index` (their id and name arrive once, their arguments in pieces); usage
 * comes in the last chunk, with no choices, when `include_usage` was asked.
 */
import type { ContentPart } from '../conversation/index.js';
import {
  MAX_RESPONSE_CHARS,
  assertUniqueCallIds,
  messageIdOf,
  responseInvalid,
  toolCallPart,
  usageOf,
} from './normalise.js';
import type { ProviderProgress, ProviderResponse, StopReason } from './types.js';

interface Call {
  id: string | undefined;
  name: string;
  args: string;
}

const STOP_REASONS: Readonly<Record<string, StopReason>> = {
  stop: 'end_turn',
  tool_calls: 'tool_use',
  function_call: 'tool_use',
  length: 'max_tokens',
  content_filter: 'refusal',
};
const MAX_CALLS = 1024;

export class OpenAIStreamFold {
  private readonly calls = new Map<number, Call>();
  private text = '';
  private refusal = '';
  private messageId: unknown;
  private model: unknown;
  private finishReason: string | null = null;
  private usage: Record<string, unknown> | undefined;
  private chars = 0;

  constructor(
    private readonly provider: string,
    private readonly onProgress?: (event: ProviderProgress) => void,
  ) {}

  /** True once a choice carried its finish_reason. */
  get finished(): boolean {
    return this.finishReason !== null;
  }

  /** @throws RyeError PROVIDER_RESPONSE_INVALID for a malformed chunk */
  add(chunk: unknown): void {
    const c = record(chunk);
    if (this.messageId === undefined) this.messageId = c['id'];
    if (this.model === undefined) this.model = c['model'];
    if (c['usage'] !== undefined && c['usage'] !== null) this.usage = record(c['usage']);
    const choices = Array.isArray(c['choices']) ? (c['choices'] as unknown[]) : [];
    for (const raw of choices) {
      const choice = record(raw);
      // We never ask for n > 1; another choice would be a second answer, not part of this one.
      if ((choice['index'] ?? 0) !== 0) continue;
      this.delta(record(choice['delta']));
      const finish = choice['finish_reason'];
      if (typeof finish === 'string' && finish !== '') this.finishReason = finish;
    }
  }

  /** The response, once a finish_reason arrived. @throws RyeError PROVIDER_RESPONSE_INVALID */
  result(): ProviderResponse {
    if (this.finishReason === null) throw this.invalid('the stream ended before a finish_reason');
    const content: ContentPart[] = [];
    const text = this.text + this.refusal;
    if (text !== '') content.push({ type: 'text', text });
    for (const index of [...this.calls.keys()].sort((a, b) => a - b)) {
      const call = this.calls.get(index)!;
      content.push(toolCallPart(this.provider, call.id, call.name, call.args));
    }
    assertUniqueCallIds(this.provider, content);
    const reason = this.finishReason;
    const stop: StopReason =
      this.refusal !== ''
        ? 'refusal'
        : Object.hasOwn(STOP_REASONS, reason)
          ? STOP_REASONS[reason]!
          : 'other';
    const counted =
      this.usage === undefined ? ({ problem: 'missing' } as const) : openAIUsage(this.usage);
    return {
      content,
      stop_reason: stop,
      provider_stop_reason: reason,
      ...('usage' in counted ? { usage: counted.usage } : { usage_problem: counted.problem }),
      provider_msg_id: messageIdOf(this.provider, this.messageId),
      model: typeof this.model === 'string' ? this.model.slice(0, 256) : '',
    };
  }

  private delta(delta: Record<string, unknown>): void {
    const { content, refusal } = delta;
    this.count(content);
    this.count(refusal);
    if (typeof content === 'string' && content !== '') {
      this.text += content;
      this.onProgress?.({ type: 'text_delta', index: 0, text: content });
    }
    if (typeof refusal === 'string') this.refusal += refusal;
    const calls = delta['tool_calls'];
    if (calls === undefined || calls === null) return;
    if (!Array.isArray(calls)) throw this.invalid('tool_calls is not a list');
    for (const raw of calls) this.callDelta(record(raw));
  }

  private callDelta(part: Record<string, unknown>): void {
    const index = this.indexOf(part);
    const fn = record(part['function']);
    let call = this.calls.get(index);
    if (call === undefined) {
      if (this.calls.size >= MAX_CALLS) throw this.invalid('too many tool calls');
      call = { id: undefined, name: '', args: '' };
      this.calls.set(index, call);
    }
    const id = part['id'];
    if (typeof id === 'string' && id !== '') {
      if (call.id !== undefined && call.id !== id)
        throw this.invalid(`tool call ${index} changed its id mid-stream`);
      call.id = id;
    }
    if (typeof fn['name'] === 'string' && call.name === '') call.name = fn['name'];
    const args = typeof fn['arguments'] === 'string' ? fn['arguments'] : '';
    this.count(args);
    call.args += args;
    this.onProgress?.({
      type: 'tool_call_delta',
      index,
      ...(call.id === undefined ? {} : { id: call.id }),
      ...(call.name === '' ? {} : { name: call.name }),
      arguments_delta: args,
    });
  }

  private count(piece: unknown): void {
    if (typeof piece !== 'string') return;
    this.chars += piece.length;
    if (this.chars > MAX_RESPONSE_CHARS)
      throw this.invalid(`the response streams more than ${MAX_RESPONSE_CHARS} characters`);
  }

  /** A delta's call index; servers that omit it are matched by id, or start a new call. */
  private indexOf(part: Record<string, unknown>): number {
    const index = part['index'];
    if (typeof index === 'number' && Number.isSafeInteger(index) && index >= 0) return index;
    if (index !== undefined) throw this.invalid('a tool call delta has a bad index');
    const id = part['id'];
    for (const [i, call] of this.calls) if (typeof id === 'string' && call.id === id) return i;
    if (typeof id !== 'string') throw this.invalid('a tool call delta has neither index nor id');
    return this.calls.size === 0 ? 0 : Math.max(...this.calls.keys()) + 1;
  }

  private invalid(why: string): Error {
    return responseInvalid(this.provider, why);
  }
}

/** OpenAI's `prompt_tokens` include cached ones; `in` here excludes them, as Anthropic's does. */
function openAIUsage(usage: Record<string, unknown>): ReturnType<typeof usageOf> {
  const prompt = usage['prompt_tokens'];
  const details = record(usage['prompt_tokens_details']);
  const cached = details['cached_tokens'];
  const counted = usageOf({
    in: prompt,
    out: usage['completion_tokens'],
    cache_r: cached,
  });
  if (!('usage' in counted) || counted.usage.cache_r === undefined) return counted;
  if (counted.usage.cache_r > counted.usage.in) return { problem: 'malformed' };
  return { usage: { ...counted.usage, in: counted.usage.in - counted.usage.cache_r } };
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}
