import { EventEmitter } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliIo } from '../../src/cli/context.js';
import { main } from '../../src/cli/main.js';
import { readHiddenLine } from '../../src/cli/prompt.js';
import { isRyeError } from '../../src/errors/index.js';
import { rye } from '../helpers/cli.js';
import { startRegistryProcess, type RegistryProcess } from '../helpers/registry-server.js';
import { makeTempSpaces, type TempSpaces } from '../helpers/temp-space.js';

/** A terminal without a pty: records raw mode and pause, and types what it is told. */
class FakeTerminal extends EventEmitter {
  raw: boolean[] = [];
  paused = false;
  setRawMode(mode: boolean): this {
    this.raw.push(mode);
    return this;
  }
  setEncoding(): this {
    return this;
  }
  resume(): this {
    this.paused = false;
    return this;
  }
  pause(): this {
    this.paused = true;
    return this;
  }
  type(...chunks: string[]): void {
    for (const chunk of chunks) this.emit('data', chunk);
  }
}

describe('readHiddenLine()', () => {
  it('reads a line in raw mode without echo, with backspace, and restores the terminal', async () => {
    const tty = new FakeTerminal();
    let shown = '';
    const line = readHiddenLine(tty, (t) => (shown += t), 'Password: ');
    tty.type('pa', 's\u007fss', 'w\u001b[Dd', '\r');
    expect(await line).toBe('passwd');
    expect(shown).toBe('Password: \n');
    expect(tty.raw).toEqual([true, false]);
    expect(tty.paused).toBe(true);
    expect(tty.listenerCount('data')).toBe(0);
  });

  it('erases the line on ^U and cancels on ^C, restoring the terminal', async () => {
    const tty = new FakeTerminal();
    const erased = readHiddenLine(tty, () => undefined, 'Password: ');
    tty.type('wrong\u0015right\n');
    expect(await erased).toBe('right');
    const cancelled = readHiddenLine(tty, () => undefined, 'Password: ');
    tty.type('abc\u0003');
    const error: unknown = await cancelled.catch((e: unknown) => e);
    expect(isRyeError(error, 'USAGE_INVALID_ARGUMENT')).toBe(true);
    expect(tty.raw).toEqual([true, false, true, false]);
  });
});

describe('rye registry signup/login password', () => {
  let server: RegistryProcess;
  beforeAll(async () => {
    server = await startRegistryProcess();
  });
  afterAll(async () => {
    await server.stop();
  });

  /** A CliIo on a terminal (no pty): `answers` are typed at each secret prompt. */
  function terminalIo(s: TempSpaces, answers: string[]) {
    const prompts: string[] = [];
    let stdout = '';
    let stderr = '';
    const io: CliIo = {
      stdout: (t) => (stdout += t),
      stderr: (t) => (stderr += t),
      env: s.env,
      cwd: s.project,
      stdinIsTTY: true,
      readStdin: () => Promise.reject(new Error('stdin is a terminal here')),
      readSecret: (prompt) => {
        prompts.push(prompt);
        return Promise.resolve(answers.shift() ?? '');
      },
    };
    return { io, prompts, out: () => stdout, err: () => stderr };
  }

  const args = (s: TempSpaces, mode: string, user: string) => [
    'registry',
    mode,
    '--username',
    user,
    '--registry',
    server.url,
    '--project',
    s.project,
  ];

  it('asks twice on a terminal for signup and refuses entries that differ, sending nothing', async () => {
    const s = makeTempSpaces();
    const differ = terminalIo(s, ['secret-pw-1', 'secret-pw-2']);
    expect(await main(args(s, 'signup', 'fran'), differ.io)).toBe(2);
    expect(differ.prompts).toEqual(['Password: ', 'Repeat the password: ']);
    expect(differ.err()).toContain('the two entries differ');

    const same = terminalIo(s, ['secret-pw-1', 'secret-pw-1']);
    expect(await main([...args(s, 'signup', 'fran'), '--json'], same.io)).toBe(0);
    expect(JSON.parse(same.out())).toMatchObject({ ok: true, username: 'fran' });

    const login = terminalIo(s, ['secret-pw-1']);
    expect(await main(args(s, 'login', 'fran'), login.io)).toBe(0);
    expect(login.prompts).toEqual(['Password: ']);
    expect(login.out()).toContain('Logged in');
  });

  it('without a terminal and without --password-stdin, is a usage error (exit 2) that asks nothing', async () => {
    const s = makeTempSpaces();
    const piped = terminalIo(s, ['never']);
    const io: CliIo = { ...piped.io, stdinIsTTY: false };
    expect(await main(args(s, 'login', 'fran'), io)).toBe(2);
    expect(piped.prompts).toEqual([]);
    expect(piped.err()).toContain('--password-stdin');
    const spawned = await rye(args(s, 'login', 'fran'), { env: s.env, stdin: 'pw\n' });
    expect(spawned.code).toBe(2);
    expect(spawned.stderr).toContain('not a terminal');
  });

  it('--password-stdin still reads a piped password', async () => {
    const s = makeTempSpaces();
    const res = await rye([...args(s, 'signup', 'gus'), '--password-stdin'], {
      env: s.env,
      stdin: 'piped-pw-123\n',
    });
    expect(res.code, res.stderr).toBe(0);
  });
});
