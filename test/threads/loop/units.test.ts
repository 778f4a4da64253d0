import { describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS } from '../../../src/threads/directive/index.js';
import { MAX_RESULT_CHARS, resultText } from '../../../src/threads/prompt/index.js';
import { limitBeforeCall, mapInWindow, requiredCapOf } from '../../../src/threads/loop/index.js';
import { ZERO_COST } from '../../../src/threads/transcript/index.js';

describe('mapInWindow()', () => {
  it('runs at most `width` at once and returns results in item order whatever order they finish in', async () => {
    let inFlight = 0;
    let peak = 0;
    const delays = [30, 5, 20, 1, 10, 2, 25, 3];
    const results = await mapInWindow(delays, 4, async (ms, i) => {
      inFlight += 1;
      peak = Math.max(peak, inFlight);
      await new Promise((r) => setTimeout(r, ms));
      inFlight -= 1;
      return i;
    });
    expect(results).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(peak).toBe(4);
  });
});

describe('resultText()', () => {
  it('redacts capability tokens and caps a result at 100 KiB as head and tail', () => {
    const token = 'rye-cap-v1.' + 'A'.repeat(40);
    expect(resultText({ data: `leak ${token}` }).text).not.toContain(token);
    const big = resultText({ data: 'x'.repeat(300_000) + 'END' });
    expect(big.truncated).toBe(true);
    expect(big.text.length).toBeLessThanOrEqual(MAX_RESULT_CHARS);
    expect(big.bytes).toBeGreaterThan(300_000);
    const parsed = JSON.parse(big.text) as { truncated: boolean; head: string; tail: string };
    expect(parsed.truncated).toBe(true);
    expect(parsed.tail.endsWith('END"}')).toBe(true);
    const quotes = resultText({ data: '"'.repeat(200_000) });
    expect(quotes.text.length).toBeLessThanOrEqual(MAX_RESULT_CHARS);
  });
});

describe('limitBeforeCall()', () => {
  const limits = { ...DEFAULT_LIMITS, turns: 2, tokens: 100, tool_calls: 3, duration_seconds: 10 };
  it('checks deadline, turns, tokens and tool calls in that order; 0 is unlimited', () => {
    expect(limitBeforeCall(limits, ZERO_COST, 0, 0)).toBeNull();
    expect(limitBeforeCall(limits, ZERO_COST, 0, 10_000)).toEqual({
      limit: 'duration_seconds',
      current: 10,
      max: 10,
    });
    expect(limitBeforeCall(limits, { ...ZERO_COST, turns: 2, tokens_in: 500 }, 0, 0)).toMatchObject(
      {
        limit: 'turns',
      },
    );
    expect(limitBeforeCall(limits, { ...ZERO_COST, tokens_in: 60, tokens_out: 40 }, 0, 0)).toEqual({
      limit: 'tokens',
      current: 100,
      max: 100,
    });
    expect(limitBeforeCall(limits, { ...ZERO_COST, tool_calls: 3 }, 0, 0)).toMatchObject({
      limit: 'tool_calls',
    });
    const unlimited = { ...limits, turns: 0, tokens: 0, tool_calls: 0, duration_seconds: 0 };
    expect(
      limitBeforeCall(
        unlimited,
        { ...ZERO_COST, turns: 1e6, tokens_in: 1e9, tool_calls: 1e6 },
        0,
        1e12,
      ),
    ).toBeNull();
  });
});

describe('requiredCapOf()', () => {
  it('names the capability a call needs, or null when its input names none', () => {
    expect(requiredCapOf('rye_execute', { item_type: 'tool', item_id: 't/echo' })).toBe(
      'rye.execute.tool.t/echo',
    );
    expect(requiredCapOf('rye_search', { item_type: 'knowledge', query: 'notes' })).toBe(
      'rye.search.knowledge.notes',
    );
    expect(requiredCapOf('directive_return', { outcome: 'success' })).toBeNull();
    expect(requiredCapOf('rye_load', 'not an object')).toBeNull();
  });
});
