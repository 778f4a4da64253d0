import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { runSubprocess } from '../../../src/executor/primitives/subprocess.js';
import type { SubprocessRequest } from '../../../src/executor/types.js';

const dirs: string[] = [];
const strays: number[] = [];

afterEach(() => {
  for (const pid of strays.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'rye-subprocess-')));
  dirs.push(dir);
  return dir;
}

function request(command: string, args: string[], extra: Partial<SubprocessRequest> = {}) {
  return {
    command,
    args,
    cwd: extra.cwd ?? tempDir(),
    env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin' },
    stdin: null,
    timeoutMs: 10_000,
    maxOutputBytes: 1024 * 1024,
    ...extra,
  } satisfies SubprocessRequest;
}

/** Gone = no such process, or a zombie left for a PID 1 that may never reap it (containers). */
function isGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
  const stat = `/proc/${pid}/stat`;
  return existsSync(stat) && /^\d+ \(.*\) Z/.test(readFileSync(stat, 'utf8'));
}

async function waitGone(pid: number): Promise<boolean> {
  for (let i = 0; i < 50; i++) {
    if (isGone(pid)) return true;
    await delay(100);
  }
  return false;
}

describe('runSubprocess()', () => {
  it('passes shell metacharacters in argv verbatim, never through a shell', async () => {
    const cwd = tempDir();
    const args = ['; touch X', '$(id)', '&& echo', '`id`', '*'];
    const result = await runSubprocess(
      request('python3', ['-c', 'import sys,json; print(json.dumps(sys.argv[1:]))', ...args], {
        cwd,
      }),
    );
    expect(JSON.parse(result.stdout)).toEqual(args);
    expect(existsSync(join(cwd, 'X'))).toBe(false);
    expect(result.returnCode).toBe(0);
  });

  it('delivers stdin then end-of-file', async () => {
    const result = await runSubprocess(request('cat', [], { stdin: 'line one\nligne deux é\n' }));
    expect(result.stdout).toBe('line one\nligne deux é\n');
  });

  it('gives the child /dev/null as stdin when it is null, never a pipe to ours', async () => {
    const result = await runSubprocess(request('readlink', ['/proc/self/fd/0'], { stdin: null }));
    expect(result).toMatchObject({ stdout: '/dev/null\n', returnCode: 0, timedOut: false });
    const cat = await runSubprocess(request('cat', [], { stdin: null }));
    expect(cat).toMatchObject({ stdout: '', returnCode: 0 });
  });

  it('kills the whole process group when the signal aborts, and says cancelled', async () => {
    const cwd = tempDir();
    const script = 'sleep 60 & echo $! > pidfile; sleep 1; touch marker; wait';
    const controller = new AbortController();
    const running = runSubprocess(
      request('sh', ['-c', script], { cwd, signal: controller.signal }),
    );
    while (!existsSync(join(cwd, 'pidfile'))) await delay(20);
    controller.abort();
    const result = await running;
    const grandchild = Number(readFileSync(join(cwd, 'pidfile'), 'utf8'));
    strays.push(grandchild);
    expect(result).toMatchObject({ cancelled: true, timedOut: false, returnCode: null });
    expect(await waitGone(grandchild)).toBe(true);
    await delay(1_200);
    expect(existsSync(join(cwd, 'marker'))).toBe(false);
  });

  it('spawns nothing when the signal is already aborted', async () => {
    const cwd = tempDir();
    const controller = new AbortController();
    controller.abort();
    const attempt = runSubprocess(
      request('sh', ['-c', 'touch marker'], { cwd, signal: controller.signal }),
    );
    await expect(attempt).rejects.toMatchObject({ code: 'EXECUTE_CANCELLED' });
    expect(existsSync(join(cwd, 'marker'))).toBe(false);
  });

  it('ignores a child that exits without reading a large stdin', async () => {
    const result = await runSubprocess(request('true', [], { stdin: 'x'.repeat(4 << 20) }));
    expect(result.returnCode).toBe(0);
  });

  it('passes exactly the given environment, nothing inherited', async () => {
    process.env['RYE_TEST_LEAK'] = 'leaked';
    try {
      const base = request('env', []);
      const result = await runSubprocess({ ...base, env: { ...base.env, RYE_A: 'x y $HOME' } });
      const names = result.stdout
        .trim()
        .split('\n')
        .map((line) => line.split('=')[0]);
      expect(names.sort()).toEqual(['PATH', 'RYE_A']);
      expect(result.stdout).toContain('RYE_A=x y $HOME\n');
    } finally {
      delete process.env['RYE_TEST_LEAK'];
    }
  });

  it('runs in the given working directory', async () => {
    const cwd = tempDir();
    const result = await runSubprocess(request('pwd', [], { cwd }));
    expect(result.stdout.trim()).toBe(cwd);
  });

  it('reports a non-zero exit code and stderr as a result, not an error', async () => {
    const result = await runSubprocess(request('sh', ['-c', 'echo oops >&2; exit 3']));
    expect(result).toMatchObject({
      returnCode: 3,
      signal: null,
      stderr: 'oops\n',
      timedOut: false,
    });
    expect(result.durationMs).toBeGreaterThan(0);
  });

  it('kills the whole process group on timeout, grandchildren included', async () => {
    const cwd = tempDir();
    const script = 'sleep 60 & echo $! > pidfile; wait';
    const result = await runSubprocess(request('sh', ['-c', script], { cwd, timeoutMs: 500 }));
    const grandchild = Number(readFileSync(join(cwd, 'pidfile'), 'utf8'));
    strays.push(grandchild);
    expect(result).toMatchObject({ timedOut: true, returnCode: null, signal: 'SIGTERM' });
    expect(await waitGone(grandchild)).toBe(true);
  });

  it('escalates to SIGKILL when the group ignores SIGTERM', async () => {
    const cwd = tempDir();
    const script = 'trap "" TERM; sleep 60 & echo $! > pidfile; wait';
    const result = await runSubprocess(request('sh', ['-c', script], { cwd, timeoutMs: 300 }));
    const grandchild = Number(readFileSync(join(cwd, 'pidfile'), 'utf8'));
    strays.push(grandchild);
    expect(result).toMatchObject({ timedOut: true, returnCode: null, signal: 'SIGKILL' });
    expect(await waitGone(grandchild)).toBe(true);
  });

  it('returns on a normal exit and leaves a background grandchild alone', async () => {
    const result = await runSubprocess(request('sh', ['-c', 'sleep 30 & echo $!']));
    const grandchild = Number(result.stdout.trim());
    strays.push(grandchild);
    expect(result).toMatchObject({ returnCode: 0, timedOut: false });
    expect(isGone(grandchild)).toBe(false);
  });

  it('throws EXECUTE_COMMAND_NOT_FOUND for a missing command', async () => {
    await expect(runSubprocess(request('rye-no-such-command-4242', []))).rejects.toMatchObject({
      code: 'EXECUTE_COMMAND_NOT_FOUND',
      details: { command: 'rye-no-such-command-4242', errno: 'ENOENT' },
    });
  });

  it('throws EXECUTE_COMMAND_NOT_FOUND for a file that is not executable', async () => {
    const script = join(tempDir(), 'tool.sh');
    writeFileSync(script, '#!/bin/sh\necho hi\n');
    chmodSync(script, 0o644);
    await expect(runSubprocess(request(script, []))).rejects.toMatchObject({
      code: 'EXECUTE_COMMAND_NOT_FOUND',
      details: { errno: 'EACCES' },
    });
  });

  it('throws EXECUTOR_CONFIG_INVALID for a working directory that does not exist', async () => {
    const cwd = join(tempDir(), 'missing');
    const error = await runSubprocess(request('true', [], { cwd })).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'EXECUTOR_CONFIG_INVALID', details: { cwd } });
    expect((error as Error).message).toContain('does not exist');
  });

  it('throws EXECUTOR_CONFIG_INVALID for an argument with a NUL byte', async () => {
    await expect(runSubprocess(request('echo', ['a\0b']))).rejects.toMatchObject({
      code: 'EXECUTOR_CONFIG_INVALID',
    });
  });

  it.runIf(process.platform === 'linux')(
    'refuses an argument over 128 KiB with EXECUTE_ARGUMENTS_TOO_LARGE, before anything runs',
    async () => {
      const dir = tempDir();
      const marker = join(dir, 'ran');
      // Multi-byte text: the limit is in bytes (its NUL included), not characters.
      const big = 'é'.repeat(64 * 1024);
      for (const args of [
        ['-c', `open("${marker}", "w")`, big],
        ['-c', `open("${marker}", "w")`, 'x'.repeat(131_072)],
      ]) {
        const error = await runSubprocess(request('python3', args, { cwd: dir })).catch(
          (e: unknown) => e,
        );
        expect(error).toMatchObject({
          code: 'EXECUTE_ARGUMENTS_TOO_LARGE',
          details: { maxBytes: 131_072 },
        });
      }
      expect(existsSync(marker)).toBe(false);
      // Right at the limit (131,071 bytes and the NUL) it runs.
      const fits = await runSubprocess(
        request('python3', ['-c', `open("${marker}", "w")`, 'y'.repeat(131_071)], {
          cwd: dir,
        }),
      );
      expect(fits.returnCode, fits.stderr).toBe(0);
      expect(existsSync(marker)).toBe(true);
    },
  );

  it('truncates output past the cap with a marker while the child still exits normally', async () => {
    const code = [
      'import sys',
      "sys.stdout.write('a' * (5 * 1024 * 1024))",
      'sys.stdout.flush()',
      "sys.stderr.write('done')",
    ].join('\n');
    const result = await runSubprocess(request('python3', ['-c', code], { maxOutputBytes: 65536 }));
    const marker = '\n[rye: stdout truncated after 65536 bytes]';
    expect(result).toMatchObject({ returnCode: 0, stdoutTruncated: true, stderrTruncated: false });
    expect(result.stdout).toBe('a'.repeat(65536) + marker);
    expect(result.stderr).toBe('done');
  });

  it('never splits a multi-byte character at the cut', async () => {
    const code = "import sys; sys.stdout.write('é' * 10); sys.stderr.write('😀😀')";
    const result = await runSubprocess(request('python3', ['-c', code], { maxOutputBytes: 5 }));
    expect(result.stdout).toBe('éé\n[rye: stdout truncated after 5 bytes]');
    expect(result.stderr).toBe('😀\n[rye: stderr truncated after 5 bytes]');
    expect(result).toMatchObject({ stdoutTruncated: true, stderrTruncated: true });
  });
});
