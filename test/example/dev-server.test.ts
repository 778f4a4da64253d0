/**
 * dev_server keeps its server's pid in `<app>/.dev-server.json`, a file a
 * thread's file writes (or the app's own code) can change. A pid planted
 * there must never get a process signalled: `stop` and `status` act only on a
 * process shown to be this app's server.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { rye } from '../helpers/cli.js';
import { processAlive } from '../helpers/process-alive.js';
import {
  APP_NAME,
  makeExampleProject,
  type ExampleProject,
} from '../support/task-manager/example-project.js';
import { appPath } from './support.js';

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

async function devServer(p: ExampleProject, action: string) {
  const res = await rye(
    [
      'execute',
      'tool',
      'apps/task-manager/dev_server',
      '--params',
      JSON.stringify({ action }),
      '--project',
      p.project,
      '--json',
    ],
    { env: p.env },
  );
  return { code: res.code, doc: res.json<{ data: Record<string, unknown> }>(), stderr: res.stderr };
}

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
