/**
 * The `rye/core/registry/registry` system tool (seed 002, "Sharing"): an agent
 * pushes and pulls bundles and searches through `rye execute`, on the same
 * code path as `rye registry …`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSigner } from '../../src/integrity/index.js';
import { keyDir } from '../../src/items/index.js';
import { rye } from '../helpers/cli.js';
import { BUILT_SYSTEM, makeExecProject } from '../helpers/exec-project.js';
import { startRegistryProcess, type RegistryProcess } from '../helpers/registry-server.js';
import { TASK_MANAGER_FILES, TASK_MANAGER_ID, writeTaskManager } from '../helpers/task-manager.js';
import { makeTempSpaces } from '../helpers/temp-space.js';

const TOOL = 'rye/core/registry/registry';

let server: RegistryProcess;
beforeAll(async () => {
  server = await startRegistryProcess();
});
afterAll(async () => {
  await server.stop();
});

const execute = (project: string, env: NodeJS.ProcessEnv, params: Record<string, unknown>) =>
  rye(
    ['execute', 'tool', TOOL, '--project', project, '--params', JSON.stringify(params), '--json'],
    {
      env,
    },
  );

describe('rye/core/registry/registry', () => {
  it('push_bundle, then pull_bundle into a fresh project and search, through rye execute', async () => {
    const author = await makeExecProject();
    const env = { ...author.env, RYE_REGISTRY_URL: server.url };
    const signup = await rye(
      [
        'registry',
        'signup',
        '--username',
        'alice',
        '--password-stdin',
        '--project',
        author.project,
      ],
      { env, stdin: 'alice-password\n' },
    );
    expect(signup.code, signup.stderr).toBe(0);
    expect((await rye(['registry', 'keys', 'add'], { env })).code).toBe(0);
    writeTaskManager(author, await readSigner(keyDir(author.spaces)));
    const created = await rye(
      ['bundle', 'create', TASK_MANAGER_ID, '--version', '1.0.0', '--include', 'task-manager'],
      { env, cwd: author.project },
    );
    expect(created.code, created.stderr).toBe(0);

    const pushed = await execute(author.project, env, {
      action: 'push_bundle',
      bundle_id: TASK_MANAGER_ID,
    });
    expect(pushed.code, pushed.stdout + pushed.stderr).toBe(0);
    expect(pushed.json()).toMatchObject({
      status: 'success',
      data: { success: true, action: 'push_bundle', namespace: 'alice', status: 'created' },
    });

    // A consumer with a fresh project and user space; the URL comes from params.
    const consumer = makeTempSpaces({ system: BUILT_SYSTEM });
    const pulled = await execute(consumer.project, consumer.env, {
      action: 'pull_bundle',
      bundle_id: `alice/${TASK_MANAGER_ID}`,
      version: '1.0.0',
      registry: server.url,
    });
    expect(pulled.code, pulled.stdout + pulled.stderr).toBe(0);
    const data = pulled.json<{
      data: { files_written: string[]; trusted_key: { owner: string } };
    }>().data;
    expect(data.files_written.sort()).toEqual(Object.keys(TASK_MANAGER_FILES).sort());
    expect(data.trusted_key.owner).toBe(`alice@127.0.0.1:${new URL(server.url).port}`);
    for (const rel of Object.keys(TASK_MANAGER_FILES))
      expect(readFileSync(join(consumer.project, rel))).toEqual(
        readFileSync(join(author.project, rel)),
      );
    const verified = await rye(
      ['bundle', 'verify', TASK_MANAGER_ID, '--project', consumer.project],
      {
        env: consumer.env,
      },
    );
    expect(verified.code, verified.stdout).toBe(0);

    const found = await execute(consumer.project, consumer.env, {
      action: 'search',
      query: 'task',
      kind: 'bundle',
      registry: server.url,
    });
    expect(found.code, found.stdout).toBe(0);
    expect(found.json()).toMatchObject({
      data: {
        success: true,
        results: [{ kind: 'bundle', namespace: 'alice', item_id: TASK_MANAGER_ID }],
      },
    });
  });

  it('reports a refusal as a failed run with its code', async () => {
    const consumer = makeTempSpaces({ system: BUILT_SYSTEM });
    const res = await execute(consumer.project, consumer.env, {
      action: 'push_bundle',
      bundle_id: TASK_MANAGER_ID,
      registry: server.url,
    });
    expect(res.code).toBe(1);
    expect(res.json()).toMatchObject({
      status: 'error',
      data: { success: false, code: 'REGISTRY_AUTH_REQUIRED' },
    });
  });

  it('refuses parameters outside its config_schema before running', async () => {
    const consumer = makeTempSpaces({ system: BUILT_SYSTEM });
    const res = await execute(consumer.project, consumer.env, { action: 'push', token: 'x' });
    expect(res.code).toBe(2);
    expect(res.json()).toMatchObject({ error: { code: 'PARAMS_INVALID' } });
  });
});
