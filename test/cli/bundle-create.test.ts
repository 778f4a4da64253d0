import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSigner } from '../../src/integrity/index.js';
import { keyDir } from '../../src/items/index.js';
import { rye, type CliResult } from '../helpers/cli.js';
import { makeExecProject, type ExecProject } from '../helpers/exec-project.js';
import { startRegistryProcess, type RegistryProcess } from '../helpers/registry-server.js';
import { TASK_MANAGER_ID, writeTaskManager } from '../helpers/task-manager.js';

async function project(): Promise<ExecProject> {
  const p = await makeExecProject();
  writeTaskManager(p, await readSigner(keyDir(p.spaces)));
  return p;
}

const cli = (p: ExecProject, ...args: string[]) =>
  rye([...args, '--project', p.project], { env: p.env });
const CREATE = ['bundle', 'create', TASK_MANAGER_ID, '--version', '1.0.0'];
const manifestOf = (p: ExecProject) =>
  join(p.project, '.ai/bundles', TASK_MANAGER_ID, 'manifest.yaml');

function expectOk(res: CliResult): void {
  expect(res.code, `${res.stdout}\n${res.stderr}`).toBe(0);
}

describe('rye bundle create --include', () => {
  it('is a usage error (exit 2) for a folder that does not exist', async () => {
    const p = await project();
    const res = await cli(p, ...CREATE, '--include', 'task-manager', '--include', 'missing-dir');
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('error[USAGE_INVALID_ARGUMENT]');
    expect(res.stderr).toContain('"missing-dir"');
  });

  it('is a usage error (exit 2), not a hostile manifest, for ../outside', async () => {
    const p = await project();
    const res = await cli(p, ...CREATE, '--include', '../outside', '--json');
    expect(res.code).toBe(2);
    expect(res.json()).toMatchObject({ ok: false, error: { code: 'USAGE_INVALID_ARGUMENT' } });
  });
});

describe('rye bundle create again', () => {
  it('needs --force to replace the same version with fewer files', async () => {
    const p = await project();
    expectOk(await cli(p, ...CREATE, '--include', 'task-manager'));
    const before = readFileSync(manifestOf(p));
    const refused = await cli(p, ...CREATE);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('error[BUNDLE_EXISTS]');
    expect(readFileSync(manifestOf(p)).equals(before)).toBe(true);
    const forced = await cli(p, ...CREATE, '--force', '--json');
    expectOk(forced);
    expect(forced.json()).toMatchObject({ ok: true, status: 'replaced' });
  });

  it('refuses a tool whose inline signature no longer verifies (exit 3)', async () => {
    const p = await project();
    appendFileSync(
      join(p.project, '.ai/tools/apps/task-manager/test_runner.py'),
      'print("added after signing")\n',
    );
    const res = await cli(p, ...CREATE, '--include', 'task-manager');
    expect(res.code).toBe(3);
    expect(res.stderr).toContain('test_runner.py');
  });
});

describe('rye bundle create, then push-bundle', () => {
  let server: RegistryProcess;
  beforeAll(async () => {
    server = await startRegistryProcess();
  });
  afterAll(async () => {
    await server.stop();
  });

  it('an unchanged bundle re-created and pushed again is "unchanged", not a version conflict', async () => {
    const p = await project();
    const reg = (...args: string[]) =>
      rye([...args, '--project', p.project, '--registry', server.url], {
        env: p.env,
        stdin: 'pw-carol-12345\n',
      });
    expectOk(await reg('registry', 'signup', '--username', 'carol', '--password-stdin'));
    expectOk(await reg('registry', 'keys', 'add'));
    expectOk(await cli(p, ...CREATE, '--include', 'task-manager'));
    const first = await reg('registry', 'push-bundle', TASK_MANAGER_ID, '--json');
    expectOk(first);
    expect(first.json()).toMatchObject({ status: 'created' });

    await new Promise((resolve) => setTimeout(resolve, 1100));
    const again = await cli(p, ...CREATE, '--include', 'task-manager');
    expectOk(again);
    expect(again.stdout).toContain('Unchanged');
    const pushed = await reg('registry', 'push-bundle', TASK_MANAGER_ID, '--json');
    expectOk(pushed);
    expect(pushed.json()).toMatchObject({ ok: true, status: 'unchanged', blobs_uploaded: 0 });
  });
});
