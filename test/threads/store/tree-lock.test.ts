import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  acquireTreeLock,
  holderAlive,
  processStartTime,
  readTreeLock,
  treeLockPath,
} from '../../../src/threads/store/index.js';
import { expectRyeError } from '../support.js';
import { tempProject, threadId } from './store-fixtures.js';

const CHILD = fileURLToPath(new URL('./fixtures/tree-lock-child.ts', import.meta.url));
const onLinux = existsSync('/proc/self/stat');

function lockPath(): string {
  const path = treeLockPath(tempProject(), threadId());
  mkdirSync(join(path, '..'), { recursive: true });
  return path;
}

function holderText(pid: number, start: string | null): string {
  return JSON.stringify({
    pid,
    start,
    nonce: 'ab'.repeat(16),
    acquired_at: '2026-01-01T00:00:00.000Z',
  });
}

/** A real process that exits when told; resolves with its pid once running. */
async function sleeper(): Promise<{ pid: number; stop(): Promise<void> }> {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  await new Promise((resolve) => child.once('spawn', resolve));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    pid: child.pid ?? 0,
    async stop() {
      child.kill('SIGKILL');
      await exited;
    },
  };
}

describe('tree lock', () => {
  it('is created whole with this process as holder, and released', () => {
    const path = lockPath();
    const lock = acquireTreeLock(path);
    const read = readTreeLock(path);
    expect(read?.holder).toEqual(lock.holder);
    expect(lock.holder.pid).toBe(process.pid);
    if (onLinux) expect(lock.holder.start).toBe(processStartTime(process.pid));
    expect(statSync(path).mode & 0o777).toBe(0o600);
    lock.release();
    expect(existsSync(path)).toBe(false);
  });

  it('refuses a second lock while the first is held (double resume)', () => {
    const path = lockPath();
    const lock = acquireTreeLock(path);
    const error = expectRyeError(() => acquireTreeLock(path), 'THREAD_LOCKED');
    expect(error.details['pid']).toBe(process.pid);
    lock.release();
    acquireTreeLock(path).release();
  });

  it('refuses while another live process holds it, and takes it over once that process is dead', async () => {
    const path = lockPath();
    const holder = await sleeper();
    writeFileSync(path, holderText(holder.pid, processStartTime(holder.pid)));
    expectRyeError(() => acquireTreeLock(path), 'THREAD_LOCKED');
    await holder.stop();
    const lock = acquireTreeLock(path);
    expect(readTreeLock(path)?.holder.pid).toBe(process.pid);
    lock.release();
  });

  it.runIf(onLinux)('treats a reused pid (another start time) as a dead holder', () => {
    const path = lockPath();
    const stale = { pid: process.pid, start: '1', nonce: 'x', acquired_at: 'then' };
    expect(holderAlive(stale)).toBe(false);
    writeFileSync(path, holderText(process.pid, '1'));
    acquireTreeLock(path).release();
  });

  it('takes over past a guard left by a takeover that died, but not past a live one', async () => {
    const path = lockPath();
    const dead = await sleeper();
    const deadText = holderText(dead.pid, processStartTime(dead.pid));
    await dead.stop();
    writeFileSync(path, deadText);
    const live = await sleeper();
    writeFileSync(`${path}.takeover`, holderText(live.pid, processStartTime(live.pid)));
    const error = expectRyeError(() => acquireTreeLock(path), 'THREAD_LOCKED');
    expect(error.message).toContain('taking over');
    expect(readFileSync(path, 'utf8')).toBe(deadText);
    await live.stop();
    const lock = acquireTreeLock(path);
    expect(existsSync(`${path}.takeover`)).toBe(false);
    lock.release();
  });

  it('never takes over a lock file it cannot read', () => {
    const path = lockPath();
    writeFileSync(path, 'not a lock');
    const error = expectRyeError(() => acquireTreeLock(path), 'THREAD_LOCKED');
    expect(error.message).toContain('cannot be read');
    expect(readFileSync(path, 'utf8')).toBe('not a lock');
  });

  it("release() leaves a lock that is no longer this holder's", () => {
    const path = lockPath();
    const lock = acquireTreeLock(path);
    writeFileSync(path, holderText(process.pid, null));
    lock.release();
    expect(readFileSync(path, 'utf8')).toBe(holderText(process.pid, null));
  });

  it(
    'lets exactly one of several processes take over a dead holder',
    { timeout: 60_000 },
    async () => {
      const path = lockPath();
      const dead = await sleeper();
      const start = processStartTime(dead.pid);
      await dead.stop();
      writeFileSync(path, holderText(dead.pid, start));
      const go = join(path, '..', 'go');
      const contenders = Array.from({ length: 4 }, () => {
        const child = spawn(process.execPath, ['--import', 'tsx', CHILD, path, go, '1500'], {
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let out = '';
        let err = '';
        child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
        const ready = new Promise<void>((resolve) =>
          child.stderr.setEncoding('utf8').on('data', (d: string) => {
            err += d;
            if (err.includes('ready')) resolve();
          }),
        );
        const done = new Promise<string>((resolve) =>
          child.once('exit', () => resolve(out.trim() || err)),
        );
        return { ready, done };
      });
      await Promise.all(contenders.map((c) => c.ready));
      writeFileSync(go, '');
      const results = await Promise.all(contenders.map((c) => c.done));
      expect(results.filter((r) => r === 'won')).toHaveLength(1);
      expect(results.filter((r) => r === 'THREAD_LOCKED')).toHaveLength(3);
    },
  );
});
