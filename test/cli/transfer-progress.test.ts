import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliIo } from '../../src/cli/context.js';
import { main } from '../../src/cli/main.js';
import { formatBytes, formatProgress, progressBar } from '../../src/cli/progress.js';
import { readSigner } from '../../src/integrity/index.js';
import { keyDir } from '../../src/items/index.js';
import { rye } from '../helpers/cli.js';
import { BUILT_SYSTEM, makeExecProject, type ExecProject } from '../helpers/exec-project.js';
import { startRegistryProcess, type RegistryProcess } from '../helpers/registry-server.js';
import { TASK_MANAGER_ID, writeTaskManager } from '../helpers/task-manager.js';
import { makeTempSpaces } from '../helpers/temp-space.js';

describe('formatProgress()', () => {
  it('shows files, and bytes against their total when known', () => {
    expect(formatProgress('uploading', 3, 12, 2_500_000, null)).toBe(
      `uploading [${'#'.repeat(8)}${'.'.repeat(22)}] 3/12 files, 2.5 MB`,
    );
    expect(formatProgress('downloading', 1, 4, 750, 1000)).toBe(
      `downloading [${'#'.repeat(23)}${'.'.repeat(7)}] 1/4 files, 750 B/1.0 kB`,
    );
    expect(formatProgress('hashing', 0, 0)).toBe(`hashing [${'#'.repeat(30)}] 0/0`);
  });

  it('writes bytes for people', () => {
    expect([999, 1000, 1_234_567, 5e9, 7e15].map(formatBytes)).toEqual([
      '999 B',
      '1.0 kB',
      '1.2 MB',
      '5.0 GB',
      '7000.0 TB',
    ]);
  });

  it('starts a new labelled bar for each phase', () => {
    const err: string[] = [];
    const bar = progressBar(
      { stdout: () => undefined, stderr: (t) => err.push(t), env: {}, cwd: '/', stderrIsTTY: true },
      'verifying',
      true,
    );
    bar.report(2, 2, 10);
    bar.phase('uploading');
    bar.report(0, 1, 0, null);
    expect(err.map((e) => e.split(' [')[0])).toEqual([
      '\r\u001b[2Kverifying',
      '\r\u001b[2Kuploading',
    ]);
  });
});

describe('push-bundle and pull-bundle progress', () => {
  let server: RegistryProcess;
  beforeAll(async () => {
    server = await startRegistryProcess();
  });
  afterAll(async () => {
    await server.stop();
  });

  function fakeIo(env: NodeJS.ProcessEnv, cwd: string, tty: boolean) {
    let stderr = '';
    let stdout = '';
    const io: CliIo = {
      stdout: (t) => (stdout += t),
      stderr: (t) => (stderr += t),
      env,
      cwd,
      stderrIsTTY: tty,
      stdinIsTTY: false,
    };
    return { io, err: () => stderr, out: () => stdout };
  }

  async function author(): Promise<ExecProject> {
    const p = await makeExecProject();
    const reg = (...args: string[]) =>
      rye([...args, '--project', p.project, '--registry', server.url], {
        env: p.env,
        stdin: 'pw-hana-12345\n',
      });
    expect((await reg('registry', 'signup', '--username', 'hana', '--password-stdin')).code).toBe(
      0,
    );
    expect((await reg('registry', 'keys', 'add')).code).toBe(0);
    writeTaskManager(p, await readSigner(keyDir(p.spaces)));
    const created = await rye(
      ['bundle', 'create', TASK_MANAGER_ID, '--version', '1.0.0', '--include', 'task-manager'],
      { env: p.env, cwd: p.project },
    );
    expect(created.code, created.stderr).toBe(0);
    return p;
  }

  it('draws verify, upload and download bars on a terminal, and nothing on a pipe or with --json', async () => {
    const p = await author();
    const push = ['registry', 'push-bundle', TASK_MANAGER_ID, '--registry', server.url];
    const tty = fakeIo(p.env, p.project, true);
    expect(await main([...push, '--project', p.project], tty.io)).toBe(0);
    expect(tty.err()).toMatch(/verifying \[#+\] 14\/14 files, \d/);
    // One upload per distinct content: two files of the task manager share theirs.
    expect(tty.err()).toMatch(/uploading \[#{30}\] 13\/13 files, [\d.]+ k?B/);
    expect(tty.err().endsWith('\r\u001b[2K')).toBe(true);

    const piped = fakeIo(p.env, p.project, false);
    expect(await main([...push, '--project', p.project], piped.io)).toBe(0);
    expect(piped.err()).toBe('');
    expect(piped.out()).toContain('(unchanged)');

    const bob = makeTempSpaces({ system: BUILT_SYSTEM });
    const pull = ['registry', 'pull-bundle', `hana/${TASK_MANAGER_ID}`, '--registry', server.url];
    const json = fakeIo(bob.env, bob.project, true);
    expect(await main([...pull, '--project', bob.project, '--json', '--force'], json.io)).toBe(0);
    expect(json.err()).toBe('');

    const fresh = makeTempSpaces({ system: BUILT_SYSTEM });
    const down = fakeIo(fresh.env, fresh.project, true);
    expect(await main([...pull, '--project', fresh.project], down.io)).toBe(0);
    expect(down.err()).toMatch(
      /downloading \[#{30}\] \d+\/\d+ files, [\d.]+ [kM]?B\/[\d.]+ [kM]?B/,
    );
  });
});
