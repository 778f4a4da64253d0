import {
  appendFileSync,
  existsSync,
  readFileSync,
  renameSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { rye } from '../helpers/cli.js';
import { makeExecProject, type ExecProject } from '../helpers/exec-project.js';

const TOOL = `import json
__version__ = "1.2.0"
__tool_type__ = "python"
__executor_id__ = "rye/core/runtimes/python_script_runtime"
__category__ = "t"
__tool_description__ = "lock test"
print(json.dumps({"ok": True}))
`;
const LOCK = '.ai/lockfiles/t/pin@1.2.0.lock.json';

async function project(): Promise<ExecProject> {
  const p = await makeExecProject();
  p.write('.ai/tools/t/pin.py', TOOL);
  await p.sign('tool', 't/pin');
  return p;
}

const cli = (p: ExecProject, ...args: string[]) =>
  rye([...args, '--project', p.project], { env: p.env });

describe('rye lock', () => {
  it('update writes the lockfile without running the tool; list and show print it', async () => {
    const p = await project();
    const update = await cli(p, 'lock', 'update', 't/pin', '--json');
    expect(update.code, update.stderr).toBe(0);
    expect(update.json()).toMatchObject({
      ok: true,
      path: join(p.project, LOCK),
      lockfile_version: 1,
      chain: 3,
    });
    const list = await cli(p, 'lock', 'list', '--json');
    expect(list.json<{ lockfiles: unknown[] }>().lockfiles).toEqual([
      expect.objectContaining({
        tool_id: 't/pin',
        version: '1.2.0',
        space: 'project',
        lockfile_version: 1,
        signed: true,
      }),
    ]);
    const show = await cli(p, 'lock', 'show', 't/pin', '--json');
    expect(show.code).toBe(0);
    expect(show.json()).toEqual({
      ok: true,
      path: join(p.project, LOCK),
      space: 'project',
      lockfile: JSON.parse(readFileSync(join(p.project, LOCK), 'utf8')),
    });
    const pinned = await cli(p, 'lock', 'show', 't/pin', '--version', '1.2.0', '--json');
    expect(pinned.stdout).toBe(show.stdout);
  });

  it('update of an unchanged chain keeps the lockfile byte for byte, so a bundle listing it still verifies', async () => {
    const p = await project();
    const first = await cli(p, 'lock', 'update', 't/pin', '--json');
    expect(first.json()).toMatchObject({ ok: true, unchanged: false });
    const bytes = readFileSync(join(p.project, LOCK));
    expect((await cli(p, 'bundle', 'create', 't', '--version', '1.0.0')).code).toBe(0);
    // A second later, a rewrite would carry a new generated_at and signature.
    await new Promise((done) => setTimeout(done, 1100));
    const again = await cli(p, 'lock', 'update', 't/pin');
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/^Unchanged .*kept as it is/);
    expect(readFileSync(join(p.project, LOCK)).equals(bytes)).toBe(true);
    const run = await cli(p, 'execute', 'tool', 't/pin', '--json');
    expect(run.json()).toMatchObject({
      metadata: { lockfile_used: true, lockfile_created: false },
    });
    expect((await cli(p, 'bundle', 'verify', 't')).code).toBe(0);

    // Not signed as this save would sign it (here: not at all): signed anew.
    const unsigned = JSON.parse(bytes.toString('utf8')) as Record<string, unknown>;
    delete unsigned['_signature'];
    writeFileSync(join(p.project, LOCK), `${JSON.stringify(unsigned, null, 2)}\n`);
    const resigned = await cli(p, 'lock', 'update', 't/pin', '--json');
    expect(resigned.json()).toMatchObject({ ok: true, unchanged: false });
    expect(readFileSync(join(p.project, LOCK), 'utf8')).toMatch(
      /^\{\n {2}"_signature": "rye:signed:/,
    );

    // A changed, re-signed tool: the lockfile is rewritten to pin it.
    appendFileSync(join(p.project, '.ai/tools/t/pin.py'), '# edit\n');
    await p.sign('tool', 't/pin');
    const changed = await cli(p, 'lock', 'update', 't/pin', '--json');
    expect(changed.json()).toMatchObject({ ok: true, unchanged: false });
    expect((await cli(p, 'execute', 'tool', 't/pin')).code).toBe(0);
  });

  it('update keeps no unchanged lockfile behind a folder link leading out of lockfiles/: it refuses, as a write does', async () => {
    const p = await project();
    expect((await cli(p, 'lock', 'update', 't/pin')).code).toBe(0);
    const folder = join(p.project, '.ai/lockfiles/t');
    const outside = join(p.project, 'outside');
    renameSync(folder, outside);
    symlinkSync(outside, folder);
    const bytes = readFileSync(join(outside, 'pin@1.2.0.lock.json'));
    const again = await cli(p, 'lock', 'update', 't/pin', '--json');
    expect(again.code).toBe(1);
    expect(again.json()).toMatchObject({ ok: false, error: { code: 'FILE_WRITE_FAILED' } });
    expect(readFileSync(join(outside, 'pin@1.2.0.lock.json')).equals(bytes)).toBe(true);
  });

  it('verify exits 0 when everything matches and 3 on a mismatch, naming the element', async () => {
    const p = await project();
    await cli(p, 'lock', 'update', 't/pin');
    expect((await cli(p, 'lock', 'verify')).code).toBe(0);
    appendFileSync(join(p.project, '.ai/tools/t/pin.py'), '# edit\n');
    const res = await cli(p, 'lock', 'verify', 't/pin', '--json');
    expect(res.code).toBe(3);
    expect(res.json()).toMatchObject({
      ok: false,
      results: [
        { tool_id: 't/pin', version: '1.2.0', status: 'mismatch', code: 'LOCKFILE_MISMATCH' },
      ],
    });
  });

  it('sign reports the lockfiles it makes stale, and the next run says stale', async () => {
    const p = await project();
    expect((await cli(p, 'execute', 'tool', 't/pin')).code).toBe(0);
    appendFileSync(join(p.project, '.ai/tools/t/pin.py'), '# new feature\n');
    const sign = await cli(p, 'sign', 'tool', 't/pin', '--json');
    expect(sign.json<{ stale_lockfiles: unknown[] }>().stale_lockfiles).toEqual([
      { path: join(p.project, LOCK), tool_id: 't/pin', pins: 't/pin' },
    ]);
    const run = await cli(p, 'execute', 'tool', 't/pin', '--json');
    expect(run.code).toBe(3);
    expect(run.json()).toMatchObject({ status: 'error', error: { code: 'LOCKFILE_STALE' } });
    expect((await cli(p, 'lock', 'verify', '--json')).json()).toMatchObject({
      results: [{ status: 'stale' }],
    });
    expect((await cli(p, 'lock', 'update', 't/pin')).code).toBe(0);
    expect((await cli(p, 'execute', 'tool', 't/pin')).code).toBe(0);
  });

  it('remove deletes the lockfile; show then reports LOCKFILE_NOT_FOUND', async () => {
    const p = await project();
    await cli(p, 'lock', 'update', 't/pin');
    const removed = await cli(p, 'lock', 'remove', 't/pin', '--json');
    expect(removed.json()).toMatchObject({ ok: true, removed: [join(p.project, LOCK)] });
    expect(existsSync(join(p.project, LOCK))).toBe(false);
    const show = await cli(p, 'lock', 'show', 't/pin', '--json');
    expect(show.code).toBe(1);
    expect(show.json()).toMatchObject({ error: { code: 'LOCKFILE_NOT_FOUND' } });
  });

  it('execute --frozen refuses an unpinned tool (exit 3) and writes nothing; RYE_FROZEN=1 too', async () => {
    const p = await project();
    const frozen = await cli(p, 'execute', 'tool', 't/pin', '--frozen', '--json');
    expect(frozen.code).toBe(3);
    expect(frozen.json()).toMatchObject({ error: { code: 'LOCKFILE_MISSING' } });
    const env = await rye(['execute', 'tool', 't/pin', '--project', p.project], {
      env: { ...p.env, RYE_FROZEN: '1' },
    });
    expect(env.code).toBe(3);
    expect(existsSync(join(p.project, LOCK))).toBe(false);
    await cli(p, 'lock', 'update', 't/pin');
    const pinnedRun = await cli(p, 'execute', 'tool', 't/pin', '--frozen', '--json');
    expect(pinnedRun.code).toBe(0);
    expect(pinnedRun.json()).toMatchObject({
      metadata: { lockfile_used: true, lockfile_created: false },
    });
  });
});
