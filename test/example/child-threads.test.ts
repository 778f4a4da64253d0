/**
 * The worked example's child directives, each run as a root thread with
 * `rye execute directive … --json` against the scripted provider (issue 17).
 * The orchestrated run (spawn, wait_threads, hooks) builds on these.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { APP_NAME, appFiles, APP_SOURCE } from '../support/task-manager/example-project.js';
import { readPlans, scaffoldFiles } from '../support/task-manager/plans.js';
import { childScripts } from '../support/task-manager/scripts.js';
import { appPath, exampleRun, runningDaemons, toolResults, type ExampleRun } from './support.js';

let open: ExampleRun | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

async function run(): Promise<ExampleRun> {
  open = await exampleRun(childScripts());
  return open;
}

const INPUTS = {
  name: APP_NAME,
  description: 'CRUD task manager',
  features: 'create, complete, delete, filter',
};
const git = (cwd: string, args: string[]) =>
  execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' },
  });

describe('the task-manager child directives as root threads', () => {
  it(
    'scaffold_project writes the scaffold in one fs_write call, installs nothing, and completes',
    { timeout: 120_000 },
    async () => {
      const p = await run();
      const res = await p.directive('scaffold_project', {
        name: INPUTS.name,
        description: INPUTS.description,
      });
      expect(res.code, res.stderr).toBe(0);
      expect(res.doc).toMatchObject({ status: 'success', data: { outcome: 'success' } });
      for (const file of scaffoldFiles(readPlans()))
        expect(readFileSync(appPath(p, file), 'utf8')).toBe(
          readFileSync(`${APP_SOURCE}/${file}`, 'utf8'),
        );
      const results = toolResults(await p.events(res.doc.thread_id));
      // All of them in one fs_write call, whose result lists each file written.
      const writes = results.filter((r) => r.input?.item_id === 'rye/file-system/fs_write');
      expect(writes).toHaveLength(1);
      expect(writes[0]?.output?.['files']).toEqual(
        scaffoldFiles(readPlans()).map((file) => ({
          path: `${APP_NAME}/${file}`,
          bytes: readFileSync(`${APP_SOURCE}/${file}`).length,
          created: true,
        })),
      );
      // rye/bash/bash does not exist: an error result, and the thread went on.
      const bash = results.find((r) => r.input?.item_id === 'rye/bash/bash');
      expect(bash).toMatchObject({ ok: false });
      const install = results.find((r) => r.input?.item_id === 'apps/task-manager/dev_server');
      expect(install).toMatchObject({ ok: true });
      expect(p.server.problems).toEqual([]);
    },
  );

  it(
    'implement_feature reads its plan, writes its files in one call and commits them with rye/core/git; the returned hash is the commit',
    { timeout: 180_000 },
    async () => {
      const p = await run();
      const plan = readPlans()[0]!;
      p.write(plan.path, plan.text);
      const res = await p.directive('implement_feature', { plan_path: plan.path, name: APP_NAME });
      expect(res.code, res.stderr).toBe(0);
      expect(res.doc.status).toBe('success');
      const hash = res.doc.data?.['commit_hash'];
      expect(hash).toMatch(/^[0-9a-f]{40}$/);
      expect(res.doc.summary).toBe(
        `Plan complete. All must_haves verified. Committed as: ${String(hash)}`,
      );
      for (const file of plan.files)
        expect(readFileSync(appPath(p, file), 'utf8')).toBe(
          readFileSync(`${APP_SOURCE}/${file}`, 'utf8'),
        );
      // The plan's files in one fs_write call (one tool process), before the commit.
      const results = toolResults(await p.events(res.doc.thread_id)).filter(
        (r) => r.input?.item_id,
      );
      expect(results.map((r) => r.input?.item_id)).toEqual([
        'rye/file-system/fs_read',
        'rye/file-system/fs_write',
        'rye/core/git',
      ]);
      expect((results[1]?.output?.['files'] as { path: string }[]).map((f) => f.path)).toEqual(
        plan.files.map((file) => `${APP_NAME}/${file}`),
      );
      const repo = appPath(p);
      expect(git(repo, ['log', '--format=%H|%an|%aI|%s']).trim()).toBe(
        `${String(hash)}|rye|2026-02-11T00:01:00+00:00|feat(task-manager): ${plan.name} — ${plan.summary}`,
      );
      expect(
        git(repo, ['show', '--name-only', '--format=', 'HEAD']).trim().split('\n').sort(),
      ).toEqual([...plan.files].sort());
      expect(p.server.problems).toEqual([]);
    },
  );

  it(
    'run_tests runs the finished app suite through test_runner and returns the counts',
    { timeout: 120_000 },
    async () => {
      const p = await run();
      p.writeApp();
      const res = await p.directive('run_tests', { name: APP_NAME });
      expect(res.code, res.stderr).toBe(0);
      expect(res.doc).toMatchObject({
        status: 'success',
        data: { outcome: 'success', passed: 8, failed: 0, failures: [] },
        summary: 'all suite of task-manager: 8 passed, 0 failed.',
      });
      expect(p.server.problems).toEqual([]);
    },
  );

  it(
    'build_and_serve builds dist/, starts the server, gets GET /api/tasks on loopback, stops it: no process left',
    { timeout: 120_000 },
    async () => {
      // dev_server start, status, stop: three calls in three sandboxes, the server a daemon.
      const p = await run();
      p.writeApp();
      const res = await p.directive('build_and_serve', { action: 'start_dev', name: APP_NAME });
      expect(res.code, res.stderr).toBe(0);
      expect(res.doc.status).toBe('success');
      const url = String(res.doc.data?.['url']);
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
      expect(existsSync(appPath(p, 'dist', 'manifest.json'))).toBe(true);
      const results = toolResults(await p.events(res.doc.thread_id));
      const data = (i: number) => results[i]?.output ?? {};
      expect(data(1)).toMatchObject({ action: 'start', url, status: 200 });
      expect(data(2)).toMatchObject({
        action: 'status',
        running: true,
        url,
        status: 200,
        tasks: 0,
      });
      const sandbox = data(1)['sandbox'];
      expect(sandbox).toMatch(/^[0-9a-f]{12}$/);
      expect(data(3)).toMatchObject({ action: 'stop', stopped: true, sandbox });
      expect(await runningDaemons(p)).toEqual([]);
      expect(existsSync(appPath(p, '.dev-server.json'))).toBe(false);
      expect(p.server.problems).toEqual([]);
    },
  );
});

describe('the generated scripts', () => {
  it('cover every file of the reference app exactly once, between the scaffold and the plans', () => {
    const plans = readPlans();
    const written = [...scaffoldFiles(plans), ...plans.flatMap((p) => p.files)].sort();
    expect(written).toEqual(appFiles());
  });
});
