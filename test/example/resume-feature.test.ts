/**
 * The worked example resumed with a feature (THREADS.md §10, §15 A): once the
 * orchestrator has built the app, `rye thread resume <root> --message "Add a
 * priority field…"` continues the same thread and transcript; the scripted
 * model plans phase 2, spawns one `implement_feature` child that changes the
 * app and commits, waits, runs the tests and returns, at a cumulative cost.
 */
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseUsd } from '../../src/threads/budget/index.js';
import { rye } from '../helpers/cli.js';
import {
  APP_NAME,
  APP_SOURCE,
  PRIORITY_SOURCE,
  appFiles,
} from '../support/task-manager/example-paths.js';
import { ORCHESTRATOR_INPUTS } from '../support/task-manager/orchestrator-script.js';
import {
  PRIORITY_MESSAGE,
  priorityPlan,
  priorityScripts,
} from '../support/task-manager/priority-script.js';
import { ledgerOf } from '../threads/loop/fixtures.js';
import {
  appPath,
  exampleRun,
  registryEdges,
  threadTree,
  toolResults,
  type ExampleRun,
  type ThreadResult,
} from './support.js';

let open: ExampleRun | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

const gitLog = (cwd: string): string[] =>
  execFileSync('git', ['log', '--format=%H|%s'], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' },
  })
    .trim()
    .split('\n');

/** The app's own server (`node server/index.js`, free port, fresh data file) for `fn`. */
async function withAppServer(p: ExampleRun, fn: (url: string) => Promise<void>): Promise<void> {
  const child = spawn(process.execPath, [appPath(p, 'server/index.js')], {
    env: { ...process.env, PORT: '0', DATA_FILE: join(p.root, 'priority-data', 'tasks.json') },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    const line = await new Promise<string>((resolve, reject) => {
      child.stdout.once('data', (d) => resolve(String(d)));
      child.once('exit', (code) => reject(new Error(`the app's server exited with ${code}`)));
    });
    await fn((JSON.parse(line) as { url: string }).url);
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

describe('build_crud_app resumed with "add a priority field"', () => {
  it(
    'the same thread and transcript, cumulative cost, one more child, commit and passing test run',
    { timeout: 300_000 },
    async () => {
      const p = (open = await exampleRun(priorityScripts()));
      const first = await p.directive('build_crud_app', ORCHESTRATOR_INPUTS);
      expect(first.code, first.stderr + first.stdout).toBe(0);
      expect(first.doc).toMatchObject({ status: 'success', data: { outcome: 'success' } });
      const root = first.doc.thread_id;
      const before = await p.events(root);
      const edgesBefore = registryEdges(p, root);
      const logBefore = gitLog(appPath(p));
      expect(logBefore).toHaveLength(4);

      const res = await rye(
        ['thread', 'resume', root, '--message', PRIORITY_MESSAGE, '--json', '--project', p.project],
        { env: p.env },
      );
      expect(p.server.problems).toEqual([]);
      expect(res.code, res.stdout + res.stderr).toBe(0);
      const doc = res.json<Omit<ThreadResult, 'status'> & { status: string }>();
      expect(doc).toMatchObject({ thread_id: root, status: 'completed' });

      // The same transcript: the first run's events unchanged, the resumed run's appended.
      const after = await p.events(root);
      expect(after.slice(0, before.length)).toEqual(before);
      expect(after.length).toBeGreaterThan(before.length);
      expect(after.filter((e) => e.type === 'thread_created')).toHaveLength(1);
      expect(after.filter((e) => e.type === 'thread_completed')).toHaveLength(2);
      const resumed = after.slice(before.length);
      expect(
        resumed.find((e) => e.type === 'cognition_in')?.payload['content'] as string,
      ).toContain(PRIORITY_MESSAGE);
      const verify = await rye(['thread', 'verify', root, '--project', p.project], {
        env: p.env,
      });
      expect(verify.code, verify.stderr).toBe(0);

      // Cumulative cost: more than the first run, and the sum of the ledger's charges:
      // the root's own attempts over both runs, its account the whole tree's.
      expect(doc.cost.turns).toBe(first.doc.cost.turns + 5);
      const spend = parseUsd(doc.cost.spend_usd, 'spend');
      expect(spend).toBeGreaterThan(parseUsd(first.doc.cost.spend_usd, 'spend'));
      const { snapshot, row } = await ledgerOf(p, root);
      expect(row).toMatchObject({ status: 'completed', turns: doc.cost.turns, spendNanos: spend });
      const attempts = (id: string) => snapshot.attempts.filter((a) => a.threadId === id);
      const charged = (id: string) =>
        attempts(id).reduce((sum, a) => sum + (a.chargedNanos ?? 0), 0);
      expect(attempts(root)).toHaveLength(doc.cost.turns);
      expect(charged(root)).toBe(spend);
      const edges = registryEdges(p, root);
      const tree = [root, ...edges.map(([id]) => id)];
      const account = snapshot.accounts.find((a) => a.threadId === root);
      expect(account?.committedNanos).toBe(tree.reduce((sum, id) => sum + charged(id), 0));
      expect(snapshot.accounts.every((a) => a.heldNanos === 0)).toBe(true);

      // New edges after the first run's: one spawn (the add_priority child, which
      // committed once), then after_complete's build_and_serve, fired again as the
      // resumed run completes.
      const added = edges.slice(edgesBefore.length);
      expect(edges.slice(0, edgesBefore.length)).toEqual(edgesBefore);
      const nodes = (await threadTree(p, root)).children.slice(edgesBefore.length);
      expect(nodes.map((c) => [c.thread_id, c.directive_id, c.edge, c.status])).toEqual([
        [added[0]?.[0], `apps/${APP_NAME}/implement_feature`, 'spawn', 'completed'],
        [added[1]?.[0], `apps/${APP_NAME}/build_and_serve`, 'hook', 'completed'],
      ]);
      const results = toolResults(resumed);
      const waited = results.find((r) => r.input?.item_id === 'rye/agent/threads/wait_threads')
        ?.output?.['threads'] as { thread_id: string; outputs: { commit_hash: string } }[];
      expect(waited.map((t) => t.thread_id)).toEqual([added[0]?.[0]]);
      const plan = priorityPlan();
      const log = gitLog(appPath(p));
      expect(log.slice(1)).toEqual(logBefore);
      expect(log[0]).toBe(
        `${waited[0]?.outputs.commit_hash}|feat(${APP_NAME}): ${plan.name} — ${plan.summary}`,
      );
      expect(readFileSync(join(p.project, plan.path), 'utf8')).toBe(plan.text);

      // The app now holds the priority variant of the files the plan changed.
      const changed = new Set(appFiles(PRIORITY_SOURCE));
      expect([...changed].sort()).toEqual([...plan.files].sort());
      for (const file of new Set([...appFiles(), ...changed]))
        expect(readFileSync(appPath(p, file), 'utf8'), file).toBe(
          readFileSync(join(changed.has(file) ? PRIORITY_SOURCE : APP_SOURCE, file), 'utf8'),
        );

      // The tests, the priority test among them, pass through test_runner.
      const tests = results.find((r) => r.input?.item_id === `apps/${APP_NAME}/test_runner`);
      expect(tests).toMatchObject({ ok: true, output: { passed: 12, failed: 0 } });
      expect(tests?.output?.['files']).toContain('test/priority.test.js');

      // And the running app takes and returns priorities.
      await withAppServer(p, async (url) => {
        const post = (body: object) =>
          fetch(`${url}api/tasks`, { method: 'POST', body: JSON.stringify(body) });
        expect((await post({ title: 'Ship it', priority: 'high' })).status).toBe(201);
        expect((await post({ title: 'Tidy up' })).status).toBe(201);
        expect((await post({ title: 'Never', priority: 'urgent' })).status).toBe(400);
        const { tasks } = (await (await fetch(`${url}api/tasks`)).json()) as {
          tasks: { title: string; priority: string }[];
        };
        expect(tasks.map((t) => [t.title, t.priority])).toEqual([
          ['Ship it', 'high'],
          ['Tidy up', 'medium'],
        ]);
      });
    },
  );
});
