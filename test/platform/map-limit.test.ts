import { describe, expect, it } from 'vitest';
import { mapLimit } from '../../src/platform/index.js';

describe('mapLimit()', () => {
  it('keeps input order, never runs more than the limit at once, and reports progress', async () => {
    let running = 0;
    let most = 0;
    const progress: number[] = [];
    const out = await mapLimit(
      [5, 1, 4, 2, 3],
      2,
      async (n) => {
        running += 1;
        most = Math.max(most, running);
        await new Promise((resolve) => setTimeout(resolve, n));
        running -= 1;
        return n * 10;
      },
      (done, total) => progress.push(done * 100 + total),
    );
    expect(out).toEqual([50, 10, 40, 20, 30]);
    expect(most).toBe(2);
    expect(progress).toEqual([105, 205, 305, 405, 505]);
  });

  it('rejects with the first failure and starts nothing after it', async () => {
    const started: number[] = [];
    const run = mapLimit([1, 2, 3, 4], 1, async (n) => {
      started.push(n);
      if (n === 2) throw new Error('two');
      return n;
    });
    await expect(run).rejects.toThrow('two');
    expect(started).toEqual([1, 2]);
  });
});
