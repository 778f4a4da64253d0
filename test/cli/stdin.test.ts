import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readPassword } from '../../src/cli/commands/registry-options.js';
import type { CliIo } from '../../src/cli/context.js';
import { readAllCapped } from '../../src/cli/stdin.js';
import { refusal } from '../helpers/refusal.js';

const io = (stdin: string | null, tty = false): CliIo => ({
  stdout: () => undefined,
  stderr: () => undefined,
  env: {},
  cwd: '/',
  stdinIsTTY: tty,
  ...(stdin === null ? {} : { readStdin: () => Promise.resolve(stdin) }),
});

describe('readAllCapped()', () => {
  it('reads a stream to its end and refuses one over the cap', async () => {
    expect(await readAllCapped(Readable.from([Buffer.from('ab'), 'cd']))).toBe('abcd');
    const error = await refusal(readAllCapped(Readable.from([Buffer.alloc(10)]), 9));
    expect(error.code).toBe('USAGE_INVALID_ARGUMENT');
  });
});

describe('readPassword()', () => {
  it('takes the piped password without its one trailing newline', async () => {
    expect(await readPassword(io('s3cret pass\n'), true)).toBe('s3cret pass');
  });

  it('refuses without --password-stdin, from a terminal, with no stdin, or empty', async () => {
    for (const [given, flag] of [
      [io('x'), false],
      [io('x', true), true],
      [io(null), true],
      [io('\n'), true],
    ] as const) {
      expect((await refusal(readPassword(given, flag))).code).toBe('USAGE_INVALID_ARGUMENT');
    }
  });
});
