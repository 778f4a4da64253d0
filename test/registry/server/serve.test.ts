import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fingerprintOf } from '../../../src/integrity/index.js';
import { startRegistryServer } from '../../../src/registry/server/index.js';
import { RYE_BIN } from '../../helpers/cli.js';
import {
  dropPgSchema,
  pgTestUrl,
  startRegistryProcess,
  type RegistryProcess,
} from '../../helpers/registry-server.js';

const running: RegistryProcess[] = [];
afterEach(async () => {
  for (const server of running.splice(0)) await server.stop();
});

describe('rye registry serve', () => {
  it('prints its listening line, serves health and its key, keeps the key 0600, stops on SIGTERM', async () => {
    const server = await startRegistryProcess();
    running.push(server);
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const health = await fetch(`${server.url}/health`);
    expect(await health.json()).toEqual({ status: 'ok', store: 'sqlite' });
    const key = (await (await fetch(`${server.url}/.well-known/rye-registry.json`)).json()) as {
      public_key: string;
      fingerprint: string;
    };
    expect(key.fingerprint).toBe(fingerprintOf(key.public_key));
    expect(key.fingerprint).toBe(server.fingerprint);
    expect(statSync(join(server.dataDir, 'registry-key.pem')).mode & 0o777).toBe(0o600);
    expect(statSync(server.dataDir).mode & 0o077).toBe(0);

    // The request line is written after the answer is sent: wait for it.
    const logged = () =>
      server
        .stderr()
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>);
    await expect.poll(() => logged().length).toBe(4);
    expect(logged().map((l) => l['msg'])).toEqual([
      'registry key created',
      'store opened',
      'request',
      'request',
    ]);
    expect(logged()[3]).toMatchObject({ path: '/.well-known/rye-registry.json', status: 200 });

    const exit = new Promise<number | null>((resolve) => server.process.once('exit', resolve));
    running.splice(0);
    await server.kill('SIGTERM');
    expect(await exit).toBe(0);

    // The same data folder again: the same key.
    const again = await startRegistryProcess({ dataDir: server.dataDir });
    running.push(again);
    expect(again.fingerprint).toBe(server.fingerprint);
    await again.stop();
    running.splice(0);
    rmSync(server.dataDir, { recursive: true, force: true });
  });

  it('serves a PostgreSQL database when given --database', async () => {
    const url = pgTestUrl();
    try {
      const server = await startRegistryProcess({ databaseUrl: url });
      running.push(server);
      const health = await fetch(`${server.url}/health`);
      expect(await health.json()).toEqual({ status: 'ok', store: 'postgres' });
      await server.stop();
      running.splice(0);
    } finally {
      await dropPgSchema(url);
    }
  });

  it('defaults --data to <user space>/.ai/registry/server', async () => {
    const user = mkdtempSync(join(tmpdir(), 'rye-user-'));
    try {
      const child = spawn(process.execPath, [RYE_BIN, 'registry', 'serve', '--port', '0'], {
        env: { ...process.env, RYE_USER_SPACE: user },
        stdio: ['ignore', 'pipe', 'ignore'],
      });
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
      await new Promise<void>((resolve) => {
        let out = '';
        child.stdout.setEncoding('utf8').on('data', (d: string) => {
          out += d;
          if (out.includes('"listening"')) resolve();
        });
      });
      expect(existsSync(join(user, '.ai', 'registry', 'server', 'registry-key.pem'))).toBe(true);
      child.kill('SIGINT');
      expect(await exited).toBe(0);
    } finally {
      rmSync(user, { recursive: true, force: true });
    }
  });

  it('exits 2 on a bad option value', async () => {
    const child = spawn(process.execPath, [RYE_BIN, 'registry', 'serve', '--port', '70000'], {
      stdio: 'ignore',
    });
    expect(await new Promise((resolve) => child.once('exit', resolve))).toBe(2);
  });
});

describe('startRegistryServer()', () => {
  it('reports the real port for port 0, refuses a port in use, and closes', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'rye-registry-'));
    const logs: Record<string, unknown>[] = [];
    try {
      const first = await startRegistryServer({
        host: '127.0.0.1',
        port: 0,
        dataDir,
        log: (e) => logs.push(e),
      });
      expect(first.port).toBeGreaterThan(0);
      expect(first.url).toBe(`http://127.0.0.1:${first.port}`);
      expect(first.backend).toBe('sqlite');
      expect(logs.find((l) => l['msg'] === 'listening')).toMatchObject({
        url: first.url,
        fingerprint: first.fingerprint,
        store: 'sqlite',
      });
      const second = startRegistryServer({
        host: '127.0.0.1',
        port: first.port,
        dataDir: join(dataDir, 'other'),
        log: () => undefined,
      });
      await expect(second).rejects.toThrow(/EADDRINUSE/);
      expect((await fetch(`${first.url}/health`)).status).toBe(200);
      await first.close();
      await expect(fetch(`${first.url}/health`)).rejects.toThrow();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
