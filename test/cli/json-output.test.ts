/**
 * The JSON contract (docs/json-output.md): every command's `--json` document
 * is one object with an `ok` field, and every key rye names is snake_case.
 * Keys that are data — the paths of a lockfile's `verified_deps.files`, the
 * tool's own output under `data` — are the exceptions the contract lists.
 *
 * Runs `main()` in process (the same code as bin/rye.js) against a real
 * registry server on loopback, so it can walk many commands quickly.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/index.js';
import type { CliIo } from '../../src/cli/index.js';
import { generateKeyFiles, readSigner } from '../../src/integrity/index.js';
import { keyDir, resolveSpaces } from '../../src/items/index.js';
import { startRegistryServer, type RunningRegistry } from '../../src/registry/server/index.js';
import { BUILT_SYSTEM, makeExecProject, type ExecProject } from '../helpers/exec-project.js';
import { PYTHON_TOOL } from '../helpers/items.js';
import { nonSnakeKeys } from '../helpers/json-keys.js';
import { TASK_MANAGER_ID, writeTaskManager } from '../helpers/task-manager.js';
import { makeTempSpaces, type TempSpaces } from '../helpers/temp-space.js';

/** JSON paths whose object keys are data, not names rye chose. */
const DATA_PATHS: readonly RegExp[] = [/^\$\.data(\.|\[|$)/, /\.verified_deps\.files$/];

const badKeys = (value: unknown): string[] => nonSnakeKeys(value, DATA_PATHS);

interface Run {
  readonly code: number;
  readonly doc: Record<string, unknown>;
}

type Who = Pick<TempSpaces, 'project' | 'env'>;

let registry: RunningRegistry;
let dataDir: TempSpaces;
const seen: { args: string; run: Run }[] = [];

async function rye(who: Who, args: string[], stdin = ''): Promise<Run> {
  let stdout = '';
  const io: CliIo = {
    stdout: (text) => (stdout += text),
    stderr: () => undefined,
    env: { ...who.env, RYE_REGISTRY_URL: registry.url },
    cwd: who.project,
    stdinIsTTY: false,
    readStdin: () => Promise.resolve(stdin),
  };
  const code = await main([...args, '--json', '--project', who.project], io);
  const run = { code, doc: JSON.parse(stdout) as Record<string, unknown> };
  seen.push({ args: args.join(' '), run });
  return run;
}

/** Asserts the contract for one document and the exit code it came with. */
function expectContract(run: Run, args: string): void {
  expect(typeof run.doc['ok'], `${args}: ok`).toBe('boolean');
  expect(run.doc['ok'], `${args}: ok and exit code ${run.code}`).toBe(run.code === 0);
  expect(badKeys(run.doc), args).toEqual([]);
}

beforeAll(async () => {
  dataDir = makeTempSpaces();
  registry = await startRegistryServer({
    host: '127.0.0.1',
    port: 0,
    dataDir: join(dataDir.root, 'registry'),
    log: () => undefined,
  });
});
afterAll(async () => {
  await registry.close();
});

describe('the --json contract', () => {
  it('every command prints one object with ok and snake_case keys', async () => {
    const alice: ExecProject = await makeExecProject();
    const tool = PYTHON_TOOL('utils', 'import json\nprint(json.dumps({"camelCase": "tool data"}))');
    alice.write('.ai/tools/utils/greet.py', tool);
    // Signed in another folder than its category says: VALIDATION_FAILED, with issues.
    alice.write('.ai/tools/utils/broken.py', PYTHON_TOOL('elsewhere'));
    alice.write('.env', 'GREETING=hello\n');

    // Keys and trust, with a second key pair to trust and remove.
    const other = makeTempSpaces();
    const otherKeys = keyDir(resolveSpaces({ ...other, env: other.env }));
    await generateKeyFiles(otherKeys);
    await rye(alice, ['keys', 'show']);
    await rye(other, ['keys', 'generate', '--force']);
    const pem = join(otherKeys, 'public_key.pem');
    const added = await rye(alice, ['trust', 'add', pem, '--owner', 'bob', '--scope', 'apps/*']);
    await rye(alice, ['trust', 'list']);
    await rye(alice, ['trust', 'approve']);
    await rye(alice, ['trust', 'revoke']);
    await rye(alice, ['trust', 'remove', String(added.doc['fingerprint'])]);
    await rye(alice, ['trust', 'remove', String(added.doc['fingerprint'])]);

    // Sign and verify, a failure among them.
    await rye(alice, ['sign', 'tool', 'utils/*']);
    await rye(alice, ['sign', 'tool', 'utils/greet']);
    await rye(alice, ['verify', 'tool', 'utils/nothing']);
    await rye(alice, ['verify', 'tool', 'utils/**']);
    await rye(alice, [
      'verify-file',
      join(alice.project, '.ai/tools/utils/greet.py'),
      '--item-type',
      'tool',
    ]);
    await rye(alice, ['dotenv', 'sign']);
    await rye(alice, ['dotenv', 'verify']);

    // Execute, lockfiles, the cache.
    await rye(alice, ['execute', 'tool', 'utils/greet']);
    await rye(alice, ['execute', 'tool', 'utils/greet', '--dry-run']);
    await rye(alice, ['execute', 'tool', 'utils/nothing']);
    await rye(alice, ['execute', 'tool', 'utils/greet', '--params', '[]']);
    await rye(alice, ['lock', 'list']);
    await rye(alice, ['lock', 'show', 'utils/greet']);
    await rye(alice, ['lock', 'verify']);
    await rye(alice, ['lock', 'update', 'utils/greet']);
    await rye(alice, ['cache', 'clear']);

    // Bundles.
    writeTaskManager(alice, await readSigner(keyDir(alice.spaces)));
    await rye(alice, [
      'bundle',
      'create',
      TASK_MANAGER_ID,
      '--version',
      '1.0.0',
      '--include',
      'task-manager',
    ]);
    await rye(alice, ['bundle', 'verify', TASK_MANAGER_ID]);
    await rye(alice, ['bundle', 'inspect', TASK_MANAGER_ID]);
    await rye(alice, ['bundle', 'list']);
    const app = join(alice.project, 'task-manager/client/src/App.jsx');
    writeFileSync(app, `${readFileSync(app, 'utf8')}// edited\n`);
    await rye(alice, ['bundle', 'verify', TASK_MANAGER_ID]);
    writeFileSync(app, readFileSync(app, 'utf8').replace('// edited\n', ''));

    // The registry: account, keys, push and pull, browse, yank, log out.
    await rye(
      alice,
      ['registry', 'signup', '--username', 'alice', '--password-stdin'],
      'pw-alice-1\n',
    );
    await rye(
      alice,
      ['registry', 'login', '--username', 'alice', '--password-stdin'],
      'pw-alice-1\n',
    );
    await rye(alice, ['registry', 'whoami']);
    await rye(alice, ['registry', 'keys', 'add']);
    await rye(alice, ['registry', 'keys', 'list']);
    await rye(alice, ['registry', 'pin', '--fingerprint', registry.fingerprint]);
    await rye(alice, ['registry', 'push', 'tool', 'utils/greet', '--version', '1.0.0']);
    await rye(alice, ['registry', 'push-bundle', TASK_MANAGER_ID]);
    await rye(alice, ['registry', 'search']);
    await rye(alice, ['registry', 'versions', 'tool', 'alice/utils/greet']);
    const bob = makeTempSpaces({ system: BUILT_SYSTEM });
    await rye(bob, ['registry', 'pull', 'tool', 'alice/utils/greet']);
    await rye(bob, ['registry', 'pull-bundle', `alice/${TASK_MANAGER_ID}`]);
    await rye(alice, ['registry', 'yank', 'tool', 'alice/utils/greet', '--version', '1.0.0']);
    await rye(bob, ['registry', 'pull', 'tool', 'alice/nothing']);
    await rye(alice, ['registry', 'logout']);

    // Usage errors, from commander and from a command.
    await rye(alice, ['verify', 'tool']);
    await rye(alice, ['sign', 'nonsense', 'x']);

    const problems = seen.flatMap(({ args, run }) => {
      const keys = badKeys(run.doc).map((k) => `${args}: key ${k}`);
      const ok =
        run.doc['ok'] === (run.code === 0)
          ? []
          : [`${args}: ok ${String(run.doc['ok'])}, exit ${run.code}`];
      return [...ok, ...keys];
    });
    expect(problems).toEqual([]);
    for (const { args, run } of seen) expectContract(run, args);
    // Error details from the library come out in snake_case.
    const doc = (args: string) => seen.find((s) => s.args === args)?.run.doc;
    expect(doc('verify tool utils/nothing')).toMatchObject({
      ok: false,
      error: { code: 'ITEM_NOT_FOUND', details: { item_type: 'tool', item_id: 'utils/nothing' } },
    });
    expect(doc('sign tool utils/*')).toMatchObject({
      ok: false,
      failed: [{ code: 'VALIDATION_FAILED', details: { issues: [expect.anything()] } }],
    });
    // The walk reached both outcomes of several commands.
    expect(seen.filter((s) => s.run.code !== 0).length).toBeGreaterThanOrEqual(6);
    expect(seen.length).toBeGreaterThanOrEqual(45);
  });

  it('badKeys() finds camelCase keys at any depth, and skips data', () => {
    expect(badKeys({ ok: true, a_b: [{ fileCount: 1 }], data: { camelCase: 1 } })).toEqual([
      '$.a_b[0].fileCount',
    ]);
    expect(badKeys({ lockfile: { verified_deps: { files: { 'src/App.jsx': 'x' } } } })).toEqual([]);
  });
});
