/**
 * The worked example shared (THREADS.md §15 A step 6, seed 002 "Sharing as an
 * MCP Bundle"): alice builds the app with the orchestrator, bundles the items
 * and pushes them to a loopback `rye registry serve`; bob, with his own user
 * space and key, pulls the bundle into a fresh project, verifies it, and the
 * same orchestrator rebuilds the app there from scratch with the same outcome.
 *
 * The bundle holds what rebuilds the app (directives, tools, knowledge, the
 * plans), not the app: bob's orchestrator writes every app file itself.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, sep } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadTrustStore, readSigner } from '../../src/integrity/index.js';
import { keyDir, trustStores } from '../../src/items/index.js';
import { readThreadRecord, threadPaths } from '../../src/threads/store/index.js';
import { rye } from '../helpers/cli.js';
import { makeExecProject } from '../helpers/exec-project.js';
import { startRegistryProcess, type RegistryProcess } from '../helpers/registry-server.js';
import { expectOk, registryRun, signUpAuthor } from '../helpers/registry-users.js';
import {
  APP_NAME,
  APP_SOURCE,
  EXAMPLE_DIR,
  appFiles,
  asExampleProject,
} from '../support/task-manager/example-project.js';
import {
  ORCHESTRATOR_INPUTS,
  orchestratorScript,
} from '../support/task-manager/orchestrator-script.js';
import { readPlans } from '../support/task-manager/plans.js';
import { childScripts } from '../support/task-manager/scripts.js';
import {
  appPath,
  exampleRun,
  threadTree,
  toolResults,
  type ExampleRun,
  type TreeView,
} from './support.js';

const BUNDLE = `apps/${APP_NAME}`;

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const o of open.splice(0).reverse()) await o.close();
});

/** A tree without its ids: what must be the same in any project. */
const shape = (t: TreeView): unknown => [
  t.directive_id,
  t.edge,
  t.status,
  t.depth,
  t.caps_dropped,
  t.children.map(shape),
];

/** The example's item files (`.ai/…`), as the repository ships them. */
function exampleItems(): string[] {
  const root = join(EXAMPLE_DIR, '.ai');
  return (readdirSync(root, { recursive: true }) as string[])
    .filter((f) => statSync(join(root, f)).isFile())
    .map((f) => `.ai/${f.split(sep).join('/')}`);
}

/** Every file the bundle lists, with its bytes. */
function bundleFiles(root: string, manifest: string[]): Map<string, Buffer> {
  return new Map(manifest.map((path) => [path, readFileSync(join(root, path))]));
}

const gitLog = (cwd: string): string[] =>
  execFileSync('git', ['log', '--format=%s'], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' },
  })
    .trim()
    .split('\n')
    .sort();

/** The orchestrated run in `p`, checked the way both projects must pass. */
async function buildTheApp(p: ExampleRun) {
  const res = await p.directive('build_crud_app', ORCHESTRATOR_INPUTS);
  expect(p.server.problems).toEqual([]);
  expect(res.code, res.stderr + res.stdout).toBe(0);
  expect(res.doc).toMatchObject({ status: 'success', data: { outcome: 'success' } });
  const root = res.doc.thread_id;
  const tree = await threadTree(p, root);
  const hook = tree.children.at(-1)!;
  const tests = toolResults(await p.events(root)).find(
    (r) => r.input?.item_id === `${BUNDLE}/test_runner`,
  );
  const served = toolResults(await p.events(hook.thread_id)).map((r) => r.output ?? {});
  return { root, tree, tests, served };
}

describe('the worked example, shared through a registry and rebuilt by another user', () => {
  it(
    'alice builds and pushes the bundle; bob pulls it, verifies it and rebuilds the app with her signatures',
    { timeout: 300_000 },
    async () => {
      const registry: RegistryProcess = await startRegistryProcess();
      open.push({ close: () => registry.stop() });

      // Alice: the orchestrated run in her project, then the bundle of its items.
      const alice = await exampleRun([orchestratorScript(), ...childScripts()]);
      open.push(alice);
      await signUpAuthor(alice, registry.url, 'alice');
      const built = await buildTheApp(alice);

      const created = await rye(
        [
          'bundle',
          'create',
          BUNDLE,
          '--version',
          '1.0.0',
          '--entrypoint',
          `directive:${BUNDLE}/build_crud_app`,
          '--description',
          'CRUD task manager, built by an orchestrator in waves',
          '--json',
          '--project',
          alice.project,
        ],
        { env: alice.env },
      );
      expectOk(created);
      const inspected = await rye(
        ['bundle', 'inspect', BUNDLE, '--json', '--project', alice.project],
        {
          env: alice.env,
        },
      );
      expectOk(inspected);
      const listed = inspected.json<{ files: { path: string }[] }>().files.map((f) => f.path);
      // The example's items, the plans the run wrote and the lockfiles its tools
      // pinned: nothing of the app the run built, nor its runtime state.
      const plans = readPlans().map((plan) => plan.path);
      expect(listed.length).toBe(created.json<{ files: number }>().files);
      expect(listed.filter((f) => !f.startsWith('.ai/lockfiles/')).sort()).toEqual(
        [...exampleItems(), ...plans].sort(),
      );
      expect(listed.filter((f) => f.startsWith('.ai/lockfiles/')).length).toBeGreaterThan(0);

      const pushed = await registryRun(alice, registry.url, [
        'registry',
        'push-bundle',
        BUNDLE,
        '--json',
      ]);
      expectOk(pushed);
      expect(pushed.json()).toMatchObject({
        status: 'created',
        namespace: 'alice',
        bundle_id: BUNDLE,
        version: '1.0.0',
        files: listed.length,
      });

      // Bob: his own user space and key, a fresh project, no login.
      const bobProject = await makeExecProject();
      const bob = await exampleRun(
        [orchestratorScript(), ...childScripts()],
        asExampleProject(bobProject),
      );
      open.push(bob);
      const aliceKey = (await readSigner(keyDir(alice.spaces))).fingerprint;
      const bobKey = (await readSigner(keyDir(bob.spaces))).fingerprint;
      expect(bobKey).not.toBe(aliceKey);

      const pulled = await registryRun(bob, registry.url, [
        'registry',
        'pull-bundle',
        `alice/${BUNDLE}`,
        '--json',
      ]);
      expectOk(pulled);
      const doc = pulled.json<{ files_written: string[]; trusted_key: { owner: string } }>();
      expect(doc.files_written.sort()).toEqual([...listed].sort());
      expect(doc.trusted_key.owner).toBe(`alice@127.0.0.1:${new URL(registry.url).port}`);
      // No app in bob's project until his orchestrator writes it.
      expect(existsSync(appPath(bob))).toBe(false);

      const verified = await rye(['bundle', 'verify', BUNDLE, '--json', '--project', bob.project], {
        env: bob.env,
      });
      expect(verified.code, verified.stdout + verified.stderr).toBe(0);
      // Every item verifies under alice's key, which the pull made bob trust.
      const { trust } = await loadTrustStore(trustStores(bob.spaces));
      expect(trust.has(aliceKey)).toBe(true);
      for (const type of ['directive', 'tool', 'knowledge']) {
        const items = await rye(
          ['verify', type, `${BUNDLE}/**`, '--json', '--project', bob.project],
          { env: bob.env },
        );
        expect(items.code, items.stdout + items.stderr).toBe(0);
        const results = items.json<{ results: { fingerprint?: string; signer?: string }[] }>()
          .results;
        expect(results.length).toBeGreaterThan(0);
        for (const r of results)
          expect(r).toMatchObject({ fingerprint: aliceKey, signer: doc.trusted_key.owner });
      }
      const before = bundleFiles(bob.project, listed);
      expect(before).toEqual(bundleFiles(alice.project, listed));

      // The same orchestrator, the same scripts: the same outcome in bob's project.
      const rebuilt = await buildTheApp(bob);
      expect(shape(rebuilt.tree)).toEqual(shape(built.tree));
      for (const run of [built, rebuilt]) {
        expect(run.tests).toMatchObject({ ok: true, output: { passed: 8, failed: 0 } });
        expect(run.served[2]).toMatchObject({ action: 'status', running: true, status: 200 });
      }
      for (const file of appFiles())
        expect(readFileSync(appPath(bob, file), 'utf8'), file).toBe(
          readFileSync(`${APP_SOURCE}/${file}`, 'utf8'),
        );
      expect(gitLog(appPath(bob))).toEqual(gitLog(appPath(alice)));

      // Bob's threads ran alice's signed directive; nothing was re-signed or rewritten.
      const record = await readThreadRecord(threadPaths(bob.project, rebuilt.root), trust);
      const aliceTrust = (await loadTrustStore(trustStores(alice.spaces))).trust;
      const aliceRecord = await readThreadRecord(
        threadPaths(alice.project, built.root),
        aliceTrust,
      );
      expect(record.directive).toEqual(aliceRecord.directive);
      expect(bundleFiles(bob.project, listed)).toEqual(before);
      const after = await rye(['bundle', 'verify', BUNDLE, '--json', '--project', bob.project], {
        env: bob.env,
      });
      expect(after.code, after.stdout + after.stderr).toBe(0);
    },
  );
});
