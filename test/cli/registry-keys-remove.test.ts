import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rye, type CliResult } from '../helpers/cli.js';
import { makeExecProject, type ExecProject } from '../helpers/exec-project.js';
import { PYTHON_TOOL } from '../helpers/items.js';
import { startRegistryProcess, type RegistryProcess } from '../helpers/registry-server.js';

let server: RegistryProcess;
beforeAll(async () => {
  server = await startRegistryProcess();
});
afterAll(async () => {
  await server.stop();
});

function expectOk(res: CliResult): void {
  expect(res.code, `${res.stdout}\n${res.stderr}`).toBe(0);
}

const reg = (p: ExecProject, ...args: string[]) =>
  rye([...args, '--project', p.project, '--registry', server.url], {
    env: p.env,
    stdin: 'pw-dora-12345\n',
  });

describe('rye registry keys remove', () => {
  it('removes your key: keys list is empty, pushes signed by it are refused (exit 3)', async () => {
    const p = await makeExecProject();
    expectOk(await reg(p, 'registry', 'signup', '--username', 'dora', '--password-stdin'));
    expectOk(await reg(p, 'registry', 'keys', 'add'));
    p.write('.ai/tools/utils/greet.py', PYTHON_TOOL('utils'));
    await p.sign('tool', 'utils/greet');

    const removed = await reg(p, 'registry', 'keys', 'remove', '--json');
    expectOk(removed);
    const doc = removed.json<{ ok: boolean; fingerprint: string; status: string }>();
    expect(doc).toMatchObject({ ok: true, action: 'keys_remove', status: 'removed' });
    const list = await reg(p, 'registry', 'keys', 'list', '--json');
    expect(list.json<{ keys: unknown[] }>().keys).toEqual([]);

    const push = await reg(p, 'registry', 'push', 'tool', 'utils/greet', '--version', '1.0.0');
    expect(push.code).toBe(3);
    expect(push.stderr).toContain('error[REGISTRY_AUTHOR_KEY_UNKNOWN]');
    expect(push.stderr).toContain('which you removed from your account');

    const human = await reg(p, 'registry', 'keys', 'remove', doc.fingerprint);
    expectOk(human);
    expect(human.stdout).toContain(`Already removed: key ${doc.fingerprint}`);

    expectOk(await reg(p, 'registry', 'keys', 'add'));
    expectOk(await reg(p, 'registry', 'push', 'tool', 'utils/greet', '--version', '1.0.0'));
  });

  it('refuses a malformed fingerprint before any request (exit 2), an unknown one with 404 (exit 1)', async () => {
    const p = await makeExecProject();
    expectOk(await reg(p, 'registry', 'signup', '--username', 'eve-12', '--password-stdin'));
    const bad = await reg(p, 'registry', 'keys', 'remove', 'NOPE', '--json');
    expect(bad.code).toBe(2);
    expect(bad.json()).toMatchObject({ error: { code: 'USAGE_INVALID_ARGUMENT' } });
    const unknown = await reg(p, 'registry', 'keys', 'remove', '0123456789abcdef', '--json');
    expect(unknown.code).toBe(1);
    expect(unknown.json()).toMatchObject({ error: { code: 'REGISTRY_NOT_FOUND' } });
  });
});
