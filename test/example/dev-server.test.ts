/**
 * dev_server keeps its server's pid in `<app>/.dev-server.json`, a file a
 * thread's file writes (or the app's own code) can change. A pid planted
 * there must never get a process signalled: `stop` and `status` act only on a
 * process shown to be this app's server. In the sandbox the server is a
 * daemon: start, status and stop are three calls in three sandboxes, and the
 * later two reach the first's through rye (the sandboxes system tool over
 * the operation channel), for this tool's daemons of this project only.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { rye } from '../helpers/cli.js';
import { processAlive } from '../helpers/process-alive.js';
import {
  APP_NAME,
  makeExampleProject,
  type ExampleProject,
} from '../support/task-manager/example-project.js';
import { appPath, runningDaemons as daemonIds } from './support.js';

const baits: ChildProcess[] = [];
afterEach(() => {
  for (const bait of baits.splice(0)) bait.kill('SIGKILL');
});

/** A process of its own group that a planted pid points at. */
function bait(): number {
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], {
    detached: true,
    stdio: 'ignore',
  });
  baits.push(child);
  return child.pid as number;
}

/** GET /api/tasks from the test process: the status code, or null when nothing answers. */
async function answers(url: string): Promise<number | null> {
  try {
    return (await fetch(`${url}api/tasks`, { signal: AbortSignal.timeout(2000) })).status;
  } catch {
    return null;
  }
}

async function devServer(p: ExampleProject, action: string, params: object = {}) {
  const res = await rye(
    [
      'execute',
      'tool',
      'apps/task-manager/dev_server',
      '--params',
      JSON.stringify({ action, ...params }),
      '--project',
      p.project,
      '--json',
    ],
    { env: p.env },
  );
  return {
    code: res.code,
    doc: res.json<{ data: Record<string, unknown>; metadata: Record<string, unknown> }>(),
    stderr: res.stderr,
  };
}

describe('dev_server in the sandbox: a daemon across three calls', () => {
  it('start leaves the server running in a daemon sandbox, status sees it through rye, stop ends it', async () => {
    const p = await makeExampleProject();
    p.writeApp();
    const start = await devServer(p, 'start', { port: 0 });
    expect(start.code, start.stderr).toBe(0);
    const id = start.doc.metadata['daemon_sandbox'];
    expect(id).toMatch(/^[0-9a-f]{12}$/);
    expect(start.doc.data).toMatchObject({ action: 'start', sandbox: id, status: 200 });
    const url = String(start.doc.data['url']);
    try {
      // The call returned; its server still answers, from a sandbox rye recorded.
      expect(await answers(url)).toBe(200);
      expect(await daemonIds(p)).toEqual([id]);
      expect(JSON.parse(readFileSync(appPath(p, '.dev-server.json'), 'utf8'))).toMatchObject({
        sandbox: id,
      });

      const again = await devServer(p, 'start', { port: 0 });
      expect(again.code).not.toBe(0);
      expect(String(again.doc.data['error'])).toContain(
        `already running at ${url} (sandbox ${id})`,
      );

      const status = await devServer(p, 'status');
      expect(status.doc.data, status.stderr).toMatchObject({
        action: 'status',
        running: true,
        sandbox: id,
        url,
        status: 200,
        tasks: 0,
      });

      const stop = await devServer(p, 'stop');
      expect(stop.doc.data, stop.stderr).toMatchObject({
        action: 'stop',
        stopped: true,
        sandbox: id,
      });
      expect(await daemonIds(p)).toEqual([]);
      expect(await answers(url)).toBe(null);
      expect(existsSync(appPath(p, '.dev-server.json'))).toBe(false);
      const after = await devServer(p, 'status');
      expect(after.doc.data).toMatchObject({ running: false });
    } finally {
      await rye(['sandbox', 'stop', String(id), '--project', p.project], { env: p.env });
    }
  });

  it("a planted sandbox id of another project's server is not this app's: nothing is stopped", async () => {
    const other = await makeExampleProject();
    other.writeApp();
    const started = await devServer(other, 'start', { port: 0 });
    expect(started.code, started.stderr).toBe(0);
    const id = String(started.doc.metadata['daemon_sandbox']);
    const url = String(started.doc.data['url']);
    try {
      // A second project of the same user (the same user space, where the records are)
      // whose state file names the first project's daemon.
      const p = { ...other, project: mkdtempSync(join(tmpdir(), 'rye-second-')) };
      cpSync(other.project, p.project, { recursive: true });
      writeFileSync(
        appPath(p, '.dev-server.json'),
        JSON.stringify({ pid: 2, port: 1, url, sandbox: id }),
      );
      const status = await devServer(p, 'status');
      expect(status.doc.data, status.stderr).toMatchObject({ success: true, running: false });
      const stop = await devServer(p, 'stop');
      expect(stop.doc.data, stop.stderr).toMatchObject({
        stopped: false,
        reason: `not running: no server of this app runs in sandbox ${id}`,
      });
      expect(await answers(url)).toBe(200);
      expect(await daemonIds(other)).toEqual([id]);
      rmSync(p.project, { recursive: true, force: true });
    } finally {
      await devServer(other, 'stop');
    }
  });
});

describe('dev_server and its state file', () => {
  it('signals no process a planted pid names: stop reports not running and drops the file, status says not running', async () => {
    const p = await makeExampleProject();
    p.writeApp();
    const pid = bait();
    const state = appPath(p, '.dev-server.json');
    const plant = () =>
      p.write(
        `${APP_NAME}/.dev-server.json`,
        JSON.stringify({ pid, port: 1, url: 'http://127.0.0.1:1/' }),
      );

    plant();
    const status = await devServer(p, 'status');
    expect(status.doc.data, status.stderr).toMatchObject({ success: true, running: false });

    const stop = await devServer(p, 'stop');
    expect(stop.doc.data, stop.stderr).toMatchObject({
      success: true,
      stopped: false,
      reason: `not running: no server of this app runs as pid ${pid}`,
    });
    expect(existsSync(state)).toBe(false);
    expect(processAlive(pid)).toBe(true);
  });

  it('refuses a state file whose pid is not a plain number above 1, signalling nothing', async () => {
    const p = await makeExampleProject();
    p.writeApp();
    const pid = bait();
    for (const planted of [String(pid), pid + 0.5, 0, 'x'])
      for (const action of ['stop', 'status', 'start']) {
        const file = p.write(
          `${APP_NAME}/.dev-server.json`,
          JSON.stringify({ pid: planted, url: 'http://127.0.0.1:1/' }),
        );
        const res = await devServer(p, action);
        expect(res.code, `${action} ${planted}`).not.toBe(0);
        expect(String(res.doc.data['error'])).toContain('is not a state file this tool wrote');
        expect(readFileSync(file, 'utf8')).toContain('127.0.0.1:1');
      }
    expect(processAlive(pid)).toBe(true);
    // Nothing was started either.
    expect(existsSync(appPath(p, '.dev-server.log'))).toBe(false);
  });
});
