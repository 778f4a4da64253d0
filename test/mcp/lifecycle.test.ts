import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RYE_BIN } from '../helpers/cli.js';
import { startRawServer, type RawServer } from './raw-server.js';
import { hostPidsIn, makeMcpProject, processAlive, until, writeRootFile } from './support.js';

/**
 * Start t/sleeper in the folder `dir` (it writes its pid, then sleeps a minute)
 * and return its host pid once it runs.
 */
async function startSleeper(server: RawServer, dir: string): Promise<number> {
  server.send({
    id: 7,
    method: 'tools/call',
    params: {
      name: 'execute',
      arguments: { item_type: 'tool', item_id: 't/sleeper', parameters: { path: dir } },
    },
  });
  const [pid] = await hostPidsIn(dir, 'pid');
  return pid ?? -1;
}

describe('rye mcp serve lifecycle', () => {
  it('writes nothing but JSON-RPC on stdout, even when a tool floods its own stdout; tools read an empty stdin', async () => {
    const p = await makeMcpProject();
    const server = await startRawServer(p);
    server.send({
      id: 1,
      method: 'tools/call',
      params: { name: 'execute', arguments: { item_type: 'tool', item_id: 't/noisy' } },
    });
    server.send({
      id: 2,
      method: 'tools/call',
      params: { name: 'load', arguments: { item_type: 'knowledge', item_id: 'notes/alpha' } },
    });
    const noisy = await server.response(1);
    await server.response(2);
    server.child.stdin.end();
    expect((await server.exited).code).toBe(0);

    const lines = server.stdout().split('\n');
    expect(lines.pop()).toBe('');
    for (const line of lines) {
      const message = JSON.parse(line) as Record<string, unknown>;
      expect(message['jsonrpc']).toBe('2.0');
    }
    // The tool's 2,000 lines came back inside the result, never as protocol lines.
    const result = noisy['result'] as {
      structuredContent: Record<string, unknown>;
      isError: boolean;
    };
    expect(result.isError).toBe(false);
    const text = JSON.stringify(result.structuredContent);
    expect(text).toContain('noise 1999');
    expect(text).toContain('{\\"stdin\\": \\"\\"}');
    expect(lines.some((line) => line.startsWith('noise'))).toBe(false);
    expect(server.stderr()).toContain('rye mcp: serving on stdio');
  });

  it('exits 0 on stdin EOF and kills a tool still running, leaving no process behind', async () => {
    const p = await makeMcpProject();
    const server = await startRawServer(p);
    const pid = await startSleeper(server, join(p.markers, 'sleeper-eof'));
    expect(processAlive(pid)).toBe(true);
    server.child.stdin.end();
    const exit = await server.exited;
    expect(exit).toEqual({ code: 0, signal: null });
    expect(server.stderr()).toContain(
      'stopping: stdin closed; killed 1 running tool process group(s)',
    );
    await until(() => !processAlive(pid), 5_000, 'the sleeper to die');
  });

  it('exits 0 on SIGTERM, killing the running tool', async () => {
    const p = await makeMcpProject();
    const server = await startRawServer(p);
    const pid = await startSleeper(server, join(p.markers, 'sleeper-term'));
    server.child.kill('SIGTERM');
    expect(await server.exited).toEqual({ code: 0, signal: null });
    expect(server.stderr()).toContain('stopping: SIGTERM; killed 1');
    await until(() => !processAlive(pid), 5_000, 'the sleeper to die');
  });

  it('exits when its parent process dies even though its stdin stays open (watchdog)', async () => {
    const p = await makeMcpProject();
    // The parent hands the write end of the server's stdin to a holder process
    // that outlives it: no EOF ever comes, only the watchdog can end the server.
    const parentScript = writeRootFile(
      p,
      'parent.cjs',
      `const { spawn } = require('node:child_process');
const server = spawn(process.execPath, [${JSON.stringify(RYE_BIN)}, 'mcp', 'serve', '--project', ${JSON.stringify(p.project)}], {
  stdio: ['pipe', 'ignore', 'inherit'],
  env: { ...process.env, RYE_MCP_WATCHDOG_MS: '100' },
});
const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], {
  stdio: ['ignore', 'ignore', 'ignore', server.stdin],
});
process.stdout.write(server.pid + ' ' + holder.pid + '\\n');
setInterval(() => {}, 1000);
`,
    );
    const parent = spawn(process.execPath, [parentScript], {
      env: p.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    parent.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    parent.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    let holderPid = -1;
    try {
      await until(
        () => out.includes('\n') && err.includes('serving on stdio'),
        20_000,
        'the server',
      );
      const [serverPid, holder] = out.trim().split(' ').map(Number) as [number, number];
      holderPid = holder;
      parent.kill('SIGKILL');
      await until(() => !processAlive(serverPid), 5_000, 'the server to exit');
      await until(() => err.includes('stopping: the parent process is gone'), 2_000, 'the log');
      expect(err).not.toContain('stdin closed');
    } finally {
      parent.kill('SIGKILL');
      if (holderPid > 0) process.kill(holderPid, 'SIGKILL');
    }
  });

  it('exits when the transport gives up on a message over its buffer, instead of lingering', async () => {
    const p = await makeMcpProject();
    const server = await startRawServer(p);
    server.child.stdin.write('{"jsonrpc":"2.0","id":9,"method":"ping","params":{"x":"');
    server.child.stdin.write('x'.repeat(11 * 1024 * 1024));
    expect(await server.exited).toEqual({ code: 0, signal: null });
    expect(server.stderr()).toContain('stopping: the transport closed');
  });

  it('refuses to start when the ceiling cannot be read, writing nothing on stdout', async () => {
    const p = await makeMcpProject();
    const server = spawn(
      process.execPath,
      [RYE_BIN, 'mcp', 'serve', '--project', p.project, '--ceiling', 'not a/valid id'],
      { env: p.env, stdio: ['pipe', 'pipe', 'pipe'] },
    );
    let out = '';
    let err = '';
    server.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    server.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    const code = await new Promise<number | null>((resolve) => server.once('exit', resolve));
    expect(code).toBe(2);
    expect(err).toContain('error[MCP_CEILING_INVALID]');
    expect(out).toBe('');
  });
});
