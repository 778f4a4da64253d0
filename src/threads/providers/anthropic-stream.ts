/**
 * Folds an Anthropic Messages event stream into one response. Events are
 * untrusted: every field is checked here, not taken from the SDK's types.
 * Deltas go to `onProgress` as they come; content is built once, at the end,
 * from the finished blocks.
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

type Block =
  | { kind: 'text'; text: string; done: boolean }
  | { kind: 'tool'; id: unknown; name: unknown; start: unknown; json: string; done: boolean }
  | { kind: 'ignored'; done: boolean };

/** Content block types that carry nothing the harness uses (we never enable thinking). */
const IGNORED_BLOCKS = new Set(['thinking', 'redacted_thinking']);
const IGNORED_DELTAS = new Set(['thinking_delta', 'signature_delta', 'citations_delta']);
const STOP_REASONS: Readonly<Record<string, StopReason>> = {
  end_turn: 'end_turn',
  tool_use: 'tool_use',
  max_tokens: 'max_tokens',
  stop_sequence: 'stop_sequence',
  refusal: 'refusal',
};
const MAX_BLOCKS = 1024;

export class AnthropicStreamFold {
  private readonly blocks = new Map<number, Block>();
  private messageId: unknown;
  private model: unknown;
  private startUsage: Record<string, unknown> = {};
  private deltaUsage: Record<string, unknown> | undefined;
  private stopReason: unknown = null;
  private stopped = false;
  private chars = 0;

  constructor(
    private readonly provider: string,
    private readonly onProgress?: (event: ProviderProgress) => void,
  ) {}

  /** True once `message_stop` arrived. */
  get finished(): boolean {
    return this.stopped;
  }

  /** @throws RyeError PROVIDER_RESPONSE_INVALID for an event out of order or malformed */
  add(event: unknown): void {
    const e = record(event);
    if (this.stopped) throw this.invalid('an event arrived after message_stop');
    switch (e['type']) {
      case 'message_start': {
        const message = record(e['message']);
        this.messageId = message['id'];
        this.model = message['model'];
        this.startUsage = record(message['usage']);
        return;
      }
      case 'content_block_start':
        return this.startBlock(e['index'], record(e['content_block']));
      case 'content_block_delta':
        return this.delta(e['index'], record(e['delta']));
      case 'content_block_stop':
        this.block(e['index']).done = true;
        return;
      case 'message_delta':
        this.stopReason = record(e['delta'])['stop_reason'] ?? null;
        if (e['usage'] !== undefined && e['usage'] !== null) this.deltaUsage = record(e['usage']);
        return;
      case 'message_stop':
        this.stopped = true;
        return;
      default:
        // New event types are additive in the API; only the ones above carry the answer.
        return;
    }
  }

  /** The response, once the stream finished. @throws RyeError PROVIDER_RESPONSE_INVALID */
  result(): ProviderResponse {
    if (!this.stopped) throw this.invalid('the stream ended before message_stop');
    const content: ContentPart[] = [];
    for (const index of [...this.blocks.keys()].sort((a, b) => a - b)) {
      const block = this.blocks.get(index)!;
      if (!block.done) throw this.invalid(`content block ${index} never stopped`);
      if (block.kind === 'text' && block.text !== '')
        content.push({ type: 'text', text: block.text });
      if (block.kind === 'tool') {
        // No input deltas: the input is the (empty) object content_block_start carried.
        const raw =
          block.json !== '' ? block.json : isObject(block.start) ? JSON.stringify(block.start) : '';
        content.push(toolCallPart(this.provider, block.id, block.name, raw));
      }
    }
    assertUniqueCallIds(this.provider, content);
    const reason = typeof this.stopReason === 'string' ? this.stopReason : null;
    const start = this.startUsage;
    const end = this.deltaUsage;
    const counted =
      end === undefined
        ? ({ problem: 'missing' } as const)
        : usageOf({
            in: end['input_tokens'] ?? start['input_tokens'],
            out: end['output_tokens'],
            cache_r: end['cache_read_input_tokens'] ?? start['cache_read_input_tokens'],
            cache_w: end['cache_creation_input_tokens'] ?? start['cache_creation_input_tokens'],
          });
    return {
      content,
      stop_reason:
        reason !== null && Object.hasOwn(STOP_REASONS, reason) ? STOP_REASONS[reason]! : 'other',
      provider_stop_reason: reason,
      ...('usage' in counted ? { usage: counted.usage } : { usage_problem: counted.problem }),
      provider_msg_id: messageIdOf(this.provider, this.messageId),
      model: typeof this.model === 'string' ? this.model.slice(0, 256) : '',
    };
  }

  private startBlock(index: unknown, block: Record<string, unknown>): void {
    if (!isIndex(index) || this.blocks.has(index) || this.blocks.size >= MAX_BLOCKS)
      throw this.invalid('content_block_start has a bad or repeated index');
    const type = block['type'];
    if (type === 'text') {
      const text = typeof block['text'] === 'string' ? block['text'] : '';
      this.blocks.set(index, { kind: 'text', text, done: false });
    } else if (type === 'tool_use') {
      const { id, name } = block;
      this.blocks.set(index, {
        kind: 'tool',
        id,
        name,
        start: block['input'],
        json: '',
        done: false,
      });
    } else if (typeof type === 'string' && IGNORED_BLOCKS.has(type)) {
      this.blocks.set(index, { kind: 'ignored', done: false });
    } else {
      throw this.invalid(
        `content block type ${JSON.stringify(String(type).slice(0, 40))} is not supported`,
      );
    }
  }

  private delta(index: unknown, delta: Record<string, unknown>): void {
    const block = this.block(index);
    const i = index as number;
    if (block.done) throw this.invalid(`a delta arrived for stopped block ${i}`);
    const type = delta['type'];
    this.count(delta['text']);
    this.count(delta['partial_json']);
    if (type === 'text_delta' && block.kind === 'text' && typeof delta['text'] === 'string') {
      block.text += delta['text'];
      this.onProgress?.({ type: 'text_delta', index: i, text: delta['text'] });
    } else if (
      type === 'input_json_delta' &&
      block.kind === 'tool' &&
      typeof delta['partial_json'] === 'string'
    ) {
      block.json += delta['partial_json'];
      this.onProgress?.({
        type: 'tool_call_delta',
        index: i,
        ...(typeof block.id === 'string' ? { id: block.id } : {}),
        ...(typeof block.name === 'string' ? { name: block.name } : {}),
        arguments_delta: delta['partial_json'],
      });
    } else if (!(typeof type === 'string' && IGNORED_DELTAS.has(type))) {
      throw this.invalid(`a ${String(type).slice(0, 40)} delta does not fit block ${i}`);
    }
  }

  private count(piece: unknown): void {
    if (typeof piece !== 'string') return;
    this.chars += piece.length;
    if (this.chars > MAX_RESPONSE_CHARS)
      throw this.invalid(`the response streams more than ${MAX_RESPONSE_CHARS} characters`);
  }

  private block(index: unknown): Block {
    const block = isIndex(index) ? this.blocks.get(index) : undefined;
    if (block === undefined)
      throw this.invalid('an event names a content block that never started');
    return block;
  }

  private invalid(why: string): Error {
    return responseInvalid(this.provider, why);
  }
}

function record(value: unknown): Record<string, unknown> {
  return isObject(value) ? (value as Record<string, unknown>) : {};
}

function isObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isIndex(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}
