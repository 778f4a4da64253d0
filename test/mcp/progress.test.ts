import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CoalescedProgress, type ProgressUpdate } from '../../src/mcp/progress.js';

describe('CoalescedProgress', () => {
  let now = 0;
  let sent: ProgressUpdate[] = [];
  const make = () =>
    new CoalescedProgress(
      (update) => {
        sent.push(update);
        return Promise.resolve();
      },
      { now: () => now },
    );

  beforeEach(() => {
    vi.useFakeTimers();
    now = 1_000;
    sent = [];
  });
  afterEach(() => vi.useRealTimers());

  it('sends the first event at once, then at most one per 50 ms carrying the latest message and the count', () => {
    const progress = make();
    progress.push('a');
    expect(sent).toEqual([{ progress: 1, message: 'a' }]);
    progress.push('b');
    progress.push('c');
    expect(sent).toHaveLength(1);
    now += 50;
    vi.advanceTimersByTime(50);
    expect(sent).toEqual([
      { progress: 1, message: 'a' },
      { progress: 3, message: 'c' },
    ]);
  });

  it('sends early once 64 events are waiting', () => {
    const progress = make();
    progress.push('first');
    for (let i = 1; i <= 64; i += 1) progress.push(`e${i}`);
    expect(sent).toEqual([
      { progress: 1, message: 'first' },
      { progress: 65, message: 'e64' },
    ]);
  });

  it('end() flushes what waits, then drops later events and ignores send failures', () => {
    const failing = new CoalescedProgress(() => Promise.reject(new Error('client gone')), {
      now: () => now,
    });
    failing.push('x');
    const progress = make();
    progress.push('a');
    progress.push('b');
    progress.end();
    progress.push('late');
    vi.advanceTimersByTime(1_000);
    expect(sent).toEqual([
      { progress: 1, message: 'a' },
      { progress: 2, message: 'b' },
    ]);
  });
});
