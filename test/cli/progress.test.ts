import { describe, expect, it } from 'vitest';
import type { CliIo } from '../../src/cli/context.js';
import { progressBar } from '../../src/cli/progress.js';

function io(tty: boolean): CliIo & { err: string[] } {
  const err: string[] = [];
  return {
    err,
    stdout: () => undefined,
    stderr: (t) => err.push(t),
    env: {},
    cwd: '/',
    stderrIsTTY: tty,
  };
}

describe('progressBar()', () => {
  it('draws on a terminal and clears the line when done', () => {
    const out = io(true);
    const bar = progressBar(out, 'hashing', true);
    bar.report(10, 10);
    bar.done();
    expect(out.err[0]).toBe(`\r\u001b[2Khashing [${'#'.repeat(30)}] 10/10`);
    expect(out.err.at(-1)).toBe('\r\u001b[2K');
  });

  it('stays quiet when stderr is not a terminal or the output is JSON', () => {
    for (const [tty, enabled] of [
      [false, true],
      [true, false],
    ] as const) {
      const out = io(tty);
      const bar = progressBar(out, 'hashing', enabled);
      bar.report(1, 2);
      bar.done();
      expect(out.err).toEqual([]);
    }
  });
});
