import { describe, expect, it } from 'vitest';
import { resultLines } from '../../src/cli/commands/run-directive.js';

const cost = { turns: 2, tokens_in: 10, tokens_out: 5, tool_calls: 1, spend_usd: '0.001' };

describe('resultLines()', () => {
  it("prints a multi-line <success> message one line each, without the XML's indentation", () => {
    const lines = resultLines({
      status: 'completed',
      thread_id: 'x-01m87qqvk0e4c09vr4t9y5m1cx',
      summary: "\n      App 'tm' built.\n      Bundle it with rye bundle create.\n    ",
      cost,
    } as Parameters<typeof resultLines>[0]);
    expect(lines).toEqual([
      'thread x-01m87qqvk0e4c09vr4t9y5m1cx: completed',
      "App 'tm' built.",
      'Bundle it with rye bundle create.',
      'cost: 2 turns, 10 tokens in, 5 out, 1 tool calls, $0.001',
    ]);
  });
});
