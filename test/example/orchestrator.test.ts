/**
 * The orchestrator (`build_crud_app`): admitted with the seed's limits and the
 * permissions its children need (`--plan`), then run end to end through the
 * CLI with the scripted provider playing every thread (THREADS.md §15 A).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { matches } from '../support/scripted-provider/script.js';
import { rye } from '../helpers/cli.js';
import { makeExampleProject } from '../support/task-manager/example-project.js';
import {
  ORCHESTRATOR_INPUTS,
  orchestratorScript,
} from '../support/task-manager/orchestrator-script.js';
import { childScripts } from '../support/task-manager/scripts.js';
import { ledgerOf } from '../threads/loop/fixtures.js';
import { readPlans } from '../support/task-manager/plans.js';
import { APP_NAME, APP_SOURCE, appFiles } from '../support/task-manager/example-project.js';
import {
  appPath,
  exampleRun,
  registryEdges,
  runningDaemons,
  toolResults,
  type ExampleRun,
  type TreeView,
} from './support.js';

describe('build_crud_app', () => {
  it('plans with the seed limits and a set holding every grant its children use', async () => {
    const p = await makeExampleProject();
    const res = await rye(
      [
        'execute',
        'directive',
        'apps/task-manager/build_crud_app',
        '--inputs',
        JSON.stringify(ORCHESTRATOR_INPUTS),
        '--plan',
        '--json',
        '--project',
        p.project,
      ],
      { env: { ...p.env, ANTHROPIC_API_KEY: 'unused' } },
    );
    expect(res.code, res.stderr).toBe(0);
    const { plan } = res.json<{
      plan: { capabilities: string[]; caps_dropped: string[]; limits: object };
    }>();
    expect(plan.limits).toMatchObject({ turns: 30, tokens: 80000, spawns: 8, spend: '3.00' });
    expect(plan.caps_dropped).toEqual([]);
    expect(plan.capabilities).toEqual(
      expect.arrayContaining([
        'rye.execute.directive.apps/task-manager/*',
        'rye.execute.tool.rye/core/git',
        'rye.execute.tool.rye/file-system/*',
        'rye.execute.tool.rye/core/runtimes/node_runtime',
        'rye.execute.tool.rye/core/sandbox/sandboxes',
      ]),
    );
  });

  it("the draft script's every directive call has a child script to answer it", () => {
    const children = childScripts();
    const calls = orchestratorScript()
      .turns.flatMap((t) => ('tool_calls' in t ? (t.tool_calls ?? []) : []))
      .filter((c) => c.input?.['item_type'] === 'directive');
    expect(calls.map((c) => c.input?.['item_id'])).toEqual([
      'apps/task-manager/scaffold_project',
      ...Array(4).fill('apps/task-manager/implement_feature'),
    ]);
    for (const call of calls) {
      const name = String(call.input?.['item_id']).split('/').at(-1) as string;
      const view = {
        system: `<directive name="${name}" version="1.0.0">`,
        firstUser: JSON.stringify(call.input?.['inputs']),
      };
      expect(children.filter((e) => matches(e.match, view)).length, view.firstUser).toBe(1);
    }
  });
});

let open: ExampleRun | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

const git = (cwd: string, args: string[]) =>
  execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' },
  });

const DIR = `apps/${APP_NAME}`;
const WAIT_TOOL = 'rye/agent/threads/wait_threads';

describe('build_crud_app end to end (THREADS.md §15 A)', () => {
  it(
    'knowledge, plans, scaffold, three waves, tests, build, return; after_complete serves the app',
    { timeout: 300_000 },
    async () => {
      const p = (open = await exampleRun([orchestratorScript(), ...childScripts()]));
      const res = await p.directive('build_crud_app', ORCHESTRATOR_INPUTS);
      expect(p.server.problems).toEqual([]);
      expect(res.code, res.stderr + res.stdout).toBe(0);
      expect(res.doc).toMatchObject({ status: 'success', data: { outcome: 'success' } });
      const root = res.doc.thread_id;

      const tree = await rye(['thread', 'tree', root, '--project', p.project, '--json'], {
        env: p.env,
      });
      expect(tree.code, tree.stderr).toBe(0);
      const view = tree.json<{ tree: TreeView }>().tree;
      expect(view).toMatchObject({ thread_id: root, status: 'completed', edge: null, depth: 0 });
      // The seed's hierarchy: scaffold (wait), four implement_feature (waves 1–3), the hook.
      expect(view.children.map((c) => [c.directive_id, c.edge, c.status, c.depth])).toEqual([
        [`${DIR}/scaffold_project`, 'spawn', 'completed', 1],
        ...Array(4).fill([`${DIR}/implement_feature`, 'spawn', 'completed', 1]),
        [`${DIR}/build_and_serve`, 'hook', 'completed', 1],
      ]);
      expect(view.children.every((c) => c.children.length === 0)).toBe(true);
      const ids = view.children.map((c) => c.thread_id);
      const edges = registryEdges(p, root);
      expect(edges).toEqual(ids.map((id, i) => [id, i === 5 ? 'hook' : 'spawn']));

      // scaffold_project declared rye.bash.*, which the orchestrator lacks: dropped, and denied.
      const [scaffold, ...rest] = view.children;
      expect(scaffold?.caps_dropped).toEqual(['rye.execute.tool.rye/bash/*']);
      expect(rest.every((c) => c.caps_dropped.length === 0)).toBe(true);
      const bash = toolResults(await p.events(scaffold!.thread_id)).find(
        (r) => r.input?.item_id === 'rye/bash/bash',
      );
      expect(bash).toMatchObject({ ok: false, error: { code: 'CAPABILITY_DENIED' } });

      // The root's own calls: each wave's wait returned its children's commits, fail_fast set.
      const rootResults = toolResults(await p.events(root));
      const waits = rootResults.filter((r) => r.input?.item_id === WAIT_TOOL);
      expect(waits.map((w) => w.input?.parameters?.['fail_fast'])).toEqual([true, true, true]);
      const waited = waits.flatMap(
        (w) => (w.output?.['threads'] as { thread_id: string; outputs: object }[]) ?? [],
      );
      // Wave 1's two spawns run in parallel: their creation order is not the call order.
      expect(waited.map((t) => t.thread_id).sort()).toEqual(ids.slice(1, 5).sort());
      const hashes = waited.map((t) => (t.outputs as { commit_hash?: string }).commit_hash ?? '');
      expect(hashes.every((h) => /^[0-9a-f]{40}$/.test(h))).toBe(true);
      expect(rootResults.find((r) => r.input?.item_id === `${DIR}/test_runner`)).toMatchObject({
        ok: true,
        output: { passed: 8, failed: 0 },
      });
      expect(rootResults.find((r) => r.input?.item_id === `${DIR}/build`)?.ok).toBe(true);

      // One commit per plan, the seed's message format (wave 1's two commit in either order).
      const plans = readPlans();
      // Each thread wrote its files in one fs_write call: the root its four plans,
      // the scaffold and every implement_feature child theirs (six tool processes).
      const writes = async (id: string) =>
        toolResults(await p.events(id)).filter(
          (r) => r.input?.item_id === 'rye/file-system/fs_write',
        );
      const rootWrites = await writes(root);
      expect(rootWrites.map((w) => w.output?.['files'])).toEqual([
        plans.map((plan) => ({
          path: plan.path,
          bytes: Buffer.byteLength(plan.text),
          created: true,
        })),
      ]);
      for (const plan of plans)
        expect(readFileSync(`${p.project}/${plan.path}`, 'utf8')).toBe(plan.text);
      const childWrites = await Promise.all(ids.slice(0, 5).map(writes));
      expect(childWrites.map((w) => [w.length, w[0]?.ok])).toEqual(Array(5).fill([1, true]));
      const log = git(appPath(p), ['log', '--format=%H|%s']).trim().split('\n');
      expect(log.sort()).toEqual(
        plans
          .map((plan, i) => `${hashes[i]}|feat(${APP_NAME}): ${plan.name} — ${plan.summary}`)
          .sort(),
      );
      for (const file of appFiles())
        expect(readFileSync(appPath(p, file), 'utf8'), file).toBe(
          readFileSync(`${APP_SOURCE}/${file}`, 'utf8'),
        );

      // after_complete: build_and_serve started the server in a daemon sandbox, got
      // GET /api/tasks answered on loopback by a later call, then stopped it through rye.
      const serve = toolResults(await p.events(ids[5]!)).map((r) => r.output ?? {});
      const sandbox = serve[1]?.['sandbox'];
      expect(sandbox).toMatch(/^[0-9a-f]{12}$/);
      expect(serve[2]).toMatchObject({
        action: 'status',
        running: true,
        sandbox,
        status: 200,
        tasks: 0,
      });
      expect(serve[3]).toMatchObject({ action: 'stop', stopped: true, sandbox });
      expect(await runningDaemons(p)).toEqual([]);

      // The ledger: every child within its limit, root = own + children, nothing held.
      const { snapshot } = await ledgerOf(p, root);
      const own = (id: string) =>
        snapshot.attempts
          .filter((a) => a.threadId === id)
          .reduce((sum, a) => sum + (a.chargedNanos ?? 0), 0);
      const account = (id: string) => snapshot.accounts.find((a) => a.threadId === id);
      expect(account(root)?.committedNanos).toBe(
        own(root) + ids.reduce((sum, id) => sum + own(id), 0),
      );
      for (const id of ids) {
        const a = account(id);
        expect(a?.committedNanos).toBe(own(id));
        if (a?.limitNanos !== null) expect(a?.committedNanos).toBeLessThanOrEqual(a!.limitNanos);
      }
      expect(snapshot.accounts.every((a) => a.heldNanos === 0)).toBe(true);

      // Every transcript verifies, offline, through the CLI.
      for (const id of [root, ...ids]) {
        const verify = await rye(['thread', 'verify', id, '--project', p.project], { env: p.env });
        expect(verify.code, `${id}: ${verify.stderr}`).toBe(0);
      }
    },
  );
});
