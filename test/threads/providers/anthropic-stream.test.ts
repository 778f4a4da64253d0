import { describe, expect, it } from 'vitest';
import { isRyeError } from '../../../src/errors/index.js';
import { AnthropicStreamFold } from '../../../src/threads/providers/anthropic-stream.js';
import { MAX_RESPONSE_CHARS } from '../../../src/threads/providers/normalise.js';

const start = {
  type: 'message_start',
  message: { id: 'msg_1', model: 'm', usage: { input_tokens: 5, output_tokens: 1 } },
};
const stop = [
  { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 2 } },
  { type: 'message_stop' },
];

function fold(events: unknown[]): AnthropicStreamFold {
  const f = new AnthropicStreamFold('p');
  for (const e of events) f.add(e);
  return f;
}

function invalid(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (isRyeError(error, 'PROVIDER_RESPONSE_INVALID')) return error.message;
    throw error;
  }
  throw new Error('expected PROVIDER_RESPONSE_INVALID');
}

describe('AnthropicStreamFold', () => {
  it('takes the empty input content_block_start carried when no input deltas follow', () => {
    const f = fold([
      start,
      {
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'tool_use', id: 'toolu_1', name: 'rye_load', input: {} },
      },
      { type: 'content_block_stop', index: 0 },
      ...stop,
    ]);
    expect(f.result().content).toEqual([
      { type: 'tool_call', id: 'toolu_1', name: 'rye_load', input: {} },
    ]);
  });

  it('refuses streams that break the event order or shapes', () => {
    expect(
      invalid(() =>
        fold([
          start,
          { type: 'content_block_delta', index: 3, delta: { type: 'text_delta', text: 'x' } },
        ]),
      ),
    ).toMatch(/never started/);
    expect(
      invalid(() =>
        fold([
          start,
          { type: 'content_block_start', index: 0, content_block: { type: 'server_tool_use' } },
        ]),
      ),
    ).toMatch(/not supported/);
    expect(
      invalid(() =>
        fold([
          start,
          { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
          {
            type: 'content_block_delta',
            index: 0,
            delta: { type: 'input_json_delta', partial_json: '{' },
          },
        ]),
      ),
    ).toMatch(/does not fit/);
    expect(invalid(() => fold([start, ...stop, { type: 'ping' }]))).toMatch(/after message_stop/);
    expect(
      invalid(() =>
        fold([
          start,
          { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
          ...stop,
        ]).result(),
      ),
    ).toMatch(/never stopped/);
    expect(invalid(() => fold([start]).result())).toMatch(/before message_stop/);
    expect(
      invalid(() => fold([{ type: 'message_start', message: { id: 42 } }, ...stop]).result()),
    ).toMatch(/message id/);
    expect(
      invalid(() =>
        fold([
          start,
          {
            type: 'content_block_start',
            index: 0,
            content_block: { type: 'tool_use', id: 'bad id!', name: 'x', input: {} },
          },
          { type: 'content_block_stop', index: 0 },
          ...stop,
        ]).result(),
      ),
    ).toMatch(/no usable id/);
  });

  it("maps unknown stop reasons to other, keeping the provider's word", () => {
    const f = fold([
      start,
      { type: 'message_delta', delta: { stop_reason: 'pause_turn' }, usage: { output_tokens: 1 } },
      { type: 'message_stop' },
    ]);
    expect(f.result()).toMatchObject({
      stop_reason: 'other',
      provider_stop_reason: 'pause_turn',
      usage: { in: 5, out: 1 },
    });
  });

  it('refuses a stream that goes on past the response cap, before memory runs out', () => {
    const big = 'x'.repeat(MAX_RESPONSE_CHARS / 2 + 1);
    const events = [
      start,
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: big } },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: big } },
    ];
    expect(invalid(() => fold(events))).toMatch(/more than/);
  });
});
