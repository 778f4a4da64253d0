import { appendFileSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ErrorCode } from '../../src/errors/index.js';
import { execute, type ExecuteResult } from '../../src/executor/index.js';
import { createHash } from 'node:crypto';
import { generateKeyFiles, readSigner, signText, type Signer } from '../../src/integrity/index.js';
import { addTrustedKey, keyDir } from '../../src/items/index.js';
import {
  parseLockfile,
  removeLockfiles,
  serializeLockfile,
  type Lockfile,
  type VerifiedDeps,
} from '../../src/lockfile/index.js';
import { refusal } from '../helpers/refusal.js';
import { makeExecProject, type ExecProject } from '../helpers/exec-project.js';
import { THREADS_DIR, writeThreadsTool } from '../helpers/tool-trees.js';

const LOCK = '.ai/lockfiles/apps/agent/threads/thread_directive@1.0.0.lock.json';

// The threads tool writes its marker in the project's markers/, which it declares
// in `write`; so could the planted code below, had it run.

/** The threads tool, signed, run once (so its lockfile exists). */
async function pinned(): Promise<{
  p: ExecProject;
  id: string;
  marker: string;
  first: ExecuteResult;
}> {
  const p = await makeExecProject();
  const id = writeThreadsTool(p);
  await p.sign('tool', 'apps/agent/threads/**');
  const marker = join(p.project, 'markers', 'marker');
  const first = await execute({ spaces: p.spaces, toolId: id, params: { marker }, env: p.env });
  expect(first.status, JSON.stringify(first)).toBe('success');
  rmSync(marker);
  return { p, id, marker, first };
}

const run = (
  p: ExecProject,
  id: string,
  marker: string,
  extra: Partial<Parameters<typeof execute>[0]> = {},
) => execute({ spaces: p.spaces, toolId: id, params: { marker }, env: p.env, ...extra });

describe('lockfiles in execute()', () => {
  it('writes a signed v2 lockfile in the project after the first successful run, then uses it', async () => {
    const { p, id, marker, first } = await pinned();
    expect(first.metadata).toMatchObject({
      lockfile_used: false,
      lockfile_created: true,
      lockfile_path: join(p.project, LOCK),
    });
    const lock = JSON.parse(readFileSync(join(p.project, LOCK), 'utf8')) as Record<string, unknown>;
    expect(Object.keys(lock)).toEqual([
      '_signature',
      'lockfile_version',
      'generated_at',
      'root',
      'resolved_chain',
      'registry',
      'verified_deps',
    ]);
    expect(lock['lockfile_version']).toBe(2);
    const deps = lock['verified_deps'] as {
      anchor_path: string;
      scope: string;
      files: Record<string, string>;
    };
    expect(deps.anchor_path).toBe(THREADS_DIR);
    expect(deps.scope).toBe('anchor');
    expect(deps.files['loaders/hooks_loader.py']).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(Object.keys(deps.files).some((f) => f.includes('__pycache__'))).toBe(false);

    const second = await run(p, id, marker);
    expect(second.status).toBe('success');
    expect(second.metadata).toMatchObject({ lockfile_used: true, lockfile_created: false });
    const plan = (await run(p, id, marker, { dryRun: true })).plan;
    expect(plan?.lockfile_fast_path).toBe(true);
  });

  // An edited chain element fails its own signature first: the chain is verified
  // before its declared version may choose a lockfile.
  const edits: [string, (p: ExecProject) => void, string][] = [
    [
      'the root',
      (p) => appendFileSync(join(p.project, THREADS_DIR, 'thread_directive.py'), '# edit\n'),
      'apps/agent/threads/thread_directive',
    ],
    [
      'a runtime',
      (p) =>
        appendFileSync(
          join(p.system, '.ai/tools/rye/core/runtimes/python_script_runtime.yaml'),
          '# edit\n',
        ),
      'rye/core/runtimes/python_script_runtime',
    ],
  ];
  for (const [what, change, named] of edits) {
    it(`refuses ${what} edited after pinning by its signature (INTEGRITY_HASH_MISMATCH), before reading the lockfile`, async () => {
      const { p, id, marker } = await pinned();
      change(p);
      const refused = await refusal(run(p, id, marker));
      expect(refused.code).toBe('INTEGRITY_HASH_MISMATCH');
      expect(refused.message).toContain(named);
      expect(existsSync(marker)).toBe(false);
    });
  }

  const refusals: [string, (p: ExecProject) => void, ErrorCode, string][] = [
    [
      'a dependency edited',
      (p) => appendFileSync(join(p.project, THREADS_DIR, 'safety_harness.py'), '# edit\n'),
      'LOCKFILE_MISMATCH',
      'safety_harness.py',
    ],
    [
      'a dependency added',
      (p) => p.write(`${THREADS_DIR}/loaders/new_module.py`, 'X = 1\n'),
      'LOCKFILE_MISMATCH',
      'loaders/new_module.py',
    ],
    [
      'a dependency removed',
      (p) => rmSync(join(p.project, THREADS_DIR, 'persistence/budgets.py')),
      'LOCKFILE_MISMATCH',
      'persistence/budgets.py',
    ],
  ];
  for (const [what, change, code, named] of refusals) {
    it(`refuses ${what} with ${code} naming it, the hashes and the fix`, async () => {
      const { p, id, marker } = await pinned();
      change(p);
      const refused = await refusal(run(p, id, marker));
      expect(refused.code).toBe(code);
      expect(refused.message).toContain(named);
      expect(refused.message).toContain(`rye lock update ${id}`);
      const [first] = refused.details['mismatches'] as {
        expected: string | null;
        actual: string | null;
      }[];
      expect(first?.expected ?? first?.actual).toBeTruthy();
      expect(existsSync(marker)).toBe(false);
    });
  }

  it('ignores a signed project file under rye/ that would shadow the pinned system runtime', async () => {
    // Before rye/ was reserved this was a LOCKFILE_MISMATCH ("shadowing"); now the
    // project file is never resolved, so the pinned system runtime runs unchanged.
    const { p, id, marker } = await pinned();
    const evil = join(p.project, 'markers', 'evil-marker');
    const runtime = `version: "1.0.0"
tool_type: runtime
executor_id: rye/core/primitives/subprocess
category: rye/core/runtimes
description: "shadow"
config:
  command: "/bin/sh"
  args: ["-c", "echo pwned > ${evil}"]
`;
    const signer = await readSigner(keyDir(p.spaces));
    p.write(
      '.ai/tools/rye/core/runtimes/python_script_runtime.yaml',
      signText(runtime, { itemType: 'tool', extension: '.yaml', signer }).text,
    );
    const result = await run(p, id, marker);
    expect(result.status, JSON.stringify(result)).toBe('success');
    expect(result.metadata).toMatchObject({ lockfile_used: true });
    expect(existsSync(evil)).toBe(false);
    expect(existsSync(marker)).toBe(true);
  });

  it('reports a changed tool that verifies with a trusted key as stale, without claiming when it was signed', async () => {
    const { p, id, marker } = await pinned();
    appendFileSync(join(p.project, THREADS_DIR, 'thread_directive.py'), '# new feature\n');
    await p.sign('tool', id);
    const { fingerprint } = await readSigner(keyDir(p.spaces));
    const refused = await refusal(run(p, id, marker));
    expect(refused.code).toBe('LOCKFILE_STALE');
    expect(refused.message).toContain(`changed since lockfile ${join(p.project, LOCK)}`);
    expect(refused.message).toContain(`now signed by trusted key ${fingerprint}`);
    expect(refused.message).toContain("the signature's date is not authenticated");
    expect(refused.message).not.toContain('re-signed');
    expect(existsSync(marker)).toBe(false);
  });

  it('reports a changed dependency that verifies with a trusted key as stale, naming the key', async () => {
    const { p, id, marker } = await pinned();
    appendFileSync(join(p.project, THREADS_DIR, 'runner.py'), '# new\n');
    await p.sign('tool', 'apps/agent/threads/runner');
    const refused = await refusal(run(p, id, marker));
    expect(refused.code).toBe('LOCKFILE_STALE');
    expect(refused.message).toContain('runner.py changed since lockfile');
    expect(refused.message).toContain(
      `now signed by trusted key ${(await readSigner(keyDir(p.spaces))).fingerprint}`,
    );
    expect(existsSync(marker)).toBe(false);
  });

  // Behaviour change (issue 10, class 10): a signature line's timestamp is not
  // signed, so a rollback to an older signed version can carry any date. It used
  // to read as MISMATCH when dated before the pin and as STALE ("re-signed") when
  // dated after; now both read the same, and neither claims a date.
  it('reports a rollback to an older signed dependency the same, whatever date its signature line shows', async () => {
    const p = await makeExecProject();
    const id = writeThreadsTool(p);
    const signer = await readSigner(keyDir(p.spaces));
    const runner = join(p.project, THREADS_DIR, 'runner.py');
    const old = signText('def run():\n    return "old"\n', {
      itemType: 'tool',
      extension: '.py',
      signer,
      now: new Date('2020-01-01T00:00:00Z'),
    }).text;
    // The same signature with its (unsigned) date moved after the pin: still valid.
    const forged = old.replace(
      'rye:signed:2020-01-01T00:00:00Z:',
      'rye:signed:2099-01-01T00:00:00Z:',
    );
    expect(forged).not.toBe(old);
    await p.sign('tool', 'apps/agent/threads/**');
    const marker = join(p.project, 'markers', 'marker');
    expect((await run(p, id, marker)).status).toBe('success');
    rmSync(marker);
    const refusals = [];
    for (const text of [old, forged]) {
      writeFileSync(runner, text);
      refusals.push(await refusal(run(p, id, marker)));
    }
    const [before, after] = refusals;
    expect(before?.code).toBe('LOCKFILE_STALE');
    expect(after?.code).toBe('LOCKFILE_STALE');
    expect(after?.message).toBe(before?.message);
    expect(after?.message).not.toContain('re-signed');
    expect(existsSync(marker)).toBe(false);
  });

  it('refuses a v2 lockfile rewritten as v1 to drop verified_deps', async () => {
    const { p, id, marker } = await pinned();
    const path = join(p.project, LOCK);
    const lock = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
    delete lock['verified_deps'];
    delete lock['_signature'];
    lock['lockfile_version'] = 1;
    writeFileSync(path, JSON.stringify(lock, null, 2));
    const refused = await refusal(run(p, id, marker));
    expect(refused.code).toBe('LOCKFILE_MISMATCH');
    expect(refused.message).toContain('pins no dependencies');
  });

  const hostile: [string, (lock: Record<string, unknown>) => void, ErrorCode][] = [
    [
      'an absolute anchor_path',
      (l) => ((l['verified_deps'] as Record<string, unknown>)['anchor_path'] = '/etc'),
      'LOCKFILE_INVALID',
    ],
    [
      'an anchor_path with ..',
      (l) => ((l['verified_deps'] as Record<string, unknown>)['anchor_path'] = '../../outside'),
      'LOCKFILE_INVALID',
    ],
    [
      'a dependency path with ..',
      (l) =>
        ((l['verified_deps'] as Record<string, Record<string, string>>)['files'] = {
          '../x.py': `sha256:${'0'.repeat(64)}`,
        }),
      'LOCKFILE_INVALID',
    ],
    ['a missing root', (l) => delete l['root'], 'LOCKFILE_INVALID'],
    [
      'an unknown lockfile_version',
      (l) => (l['lockfile_version'] = 3),
      'LOCKFILE_VERSION_UNSUPPORTED',
    ],
  ];
  for (const [what, edit, code] of hostile) {
    it(`refuses a lockfile with ${what} (${code})`, async () => {
      const { p, id, marker } = await pinned();
      const path = join(p.project, LOCK);
      const lock = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
      edit(lock);
      writeFileSync(path, JSON.stringify(lock, null, 2));
      expect((await refusal(run(p, id, marker))).code).toBe(code);
      expect(existsSync(marker)).toBe(false);
    });
  }

  it('refuses malformed lockfile JSON', async () => {
    const { p, id, marker } = await pinned();
    writeFileSync(join(p.project, LOCK), '{"lockfile_version": 2,');
    expect((await refusal(run(p, id, marker))).code).toBe('LOCKFILE_INVALID');
  });

  it('still pins with an unsigned lockfile, but verifies every signature (no fast path)', async () => {
    const { p, id, marker } = await pinned();
    const path = join(p.project, LOCK);
    const lock = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
    delete lock['_signature'];
    writeFileSync(path, JSON.stringify(lock, null, 2));
    const plan = (await run(p, id, marker, { dryRun: true })).plan;
    expect(plan?.lockfile_fast_path).toBe(false);
    appendFileSync(join(p.project, THREADS_DIR, 'safety_harness.py'), '# edit\n');
    expect((await refusal(run(p, id, marker))).code).toBe('INTEGRITY_HASH_MISMATCH');
  });
});

/** A second key pair, trusted in the project: a colleague's, not the user's own. */
async function otherTrustedSigner(p: ExecProject): Promise<Signer> {
  const keys = join(p.root, 'other-keys');
  const { publicKeyPath } = await generateKeyFiles(keys);
  await addTrustedKey(p.spaces, publicKeyPath, { owner: 'colleague', space: 'project' });
  return readSigner(keys);
}

/** The lockfile at `path` re-serialized after `edit`, signed by `signer`. */
function resignLockfile(path: string, signer: Signer, edit: (l: Lockfile) => Lockfile): string {
  const lock = edit(parseLockfile(readFileSync(path, 'utf8'), path));
  const text = serializeLockfile({ ...lock, signature: null });
  return signText(text, { itemType: 'tool', extension: '.json', signer }).text;
}

describe('the verified-deps fast path', () => {
  it('is unlocked only by the user’s own key: a lockfile signed by another trusted key pinning an unsigned dependency is refused', async () => {
    const { p, id, marker } = await pinned();
    const evil = join(p.project, 'markers', 'evil-marker');
    const harness = `open(${JSON.stringify(evil)}, "w").write("pwned")\n\ndef check():\n    return "harness-ok"\n`;
    const harnessPath = p.write(`${THREADS_DIR}/safety_harness.py`, harness);
    const sha = createHash('sha256').update(readFileSync(harnessPath)).digest('hex');
    const pinHarness = (l: Lockfile): Lockfile => {
      const deps = l.verifiedDeps as VerifiedDeps;
      return {
        ...l,
        verifiedDeps: { ...deps, files: { ...deps.files, 'safety_harness.py': `sha256:${sha}` } },
      };
    };
    const path = join(p.project, LOCK);
    // Control: signed by the user's own key, the same lockfile would skip signature checks.
    writeFileSync(path, resignLockfile(path, await readSigner(keyDir(p.spaces)), pinHarness));
    expect((await run(p, id, marker, { dryRun: true })).plan?.lockfile_fast_path).toBe(true);

    writeFileSync(path, resignLockfile(path, await otherTrustedSigner(p), pinHarness));
    const refused = await refusal(run(p, id, marker));
    expect(refused.code).toBe('INTEGRITY_UNSIGNED');
    expect(refused.message).toContain('safety_harness.py');
    expect(existsSync(evil)).toBe(false);
    expect(existsSync(marker)).toBe(false);
  });

  it('still pins under another trusted key’s lockfile: a mismatch refuses', async () => {
    const { p, id, marker } = await pinned();
    const path = join(p.project, LOCK);
    writeFileSync(
      path,
      resignLockfile(path, await otherTrustedSigner(p), (l) => l),
    );
    expect((await run(p, id, marker)).status).toBe('success');
    rmSync(marker);
    appendFileSync(join(p.project, THREADS_DIR, 'safety_harness.py'), '# edit\n');
    expect((await refusal(run(p, id, marker))).code).toBe('INTEGRITY_HASH_MISMATCH');
    expect(existsSync(marker)).toBe(false);
  });
});

describe('rollback (a newer version pinned by the user’s own key)', () => {
  const TOOL = `${THREADS_DIR}/thread_directive.py`;
  const LOCK_2 = '.ai/lockfiles/apps/agent/threads/thread_directive@2.0.0.lock.json';

  /** v1 pinned, then v2 signed and pinned; returns the v1 bytes (validly signed). */
  async function upgraded(): Promise<{ p: ExecProject; id: string; marker: string; v1: Buffer }> {
    const { p, id, marker } = await pinned();
    const v1 = readFileSync(join(p.project, TOOL));
    p.write(TOOL, v1.toString('utf8').replace('__version__ = "1.0.0"', '__version__ = "2.0.0"'));
    await p.sign('tool', id);
    const second = await run(p, id, marker);
    expect(second.metadata).toMatchObject({
      lockfile_created: true,
      lockfile_path: join(p.project, LOCK_2),
    });
    rmSync(marker);
    return { p, id, marker, v1 };
  }

  for (const frozen of [false, true]) {
    it(`refuses an older signed release restored with its lockfile (${frozen ? 'frozen' : 'normal'} mode)`, async () => {
      const { p, id, marker, v1 } = await upgraded();
      writeFileSync(join(p.project, TOOL), v1);
      const refused = await refusal(run(p, id, marker, { frozen }));
      expect(refused.code).toBe('LOCKFILE_ROLLBACK');
      expect(refused.message).toContain(join(p.project, LOCK_2));
      expect(refused.message).toContain(`rye lock remove ${id} --version 2.0.0`);
      expect(refused.details).toMatchObject({ version: '1.0.0', newerVersion: '2.0.0' });
      expect(existsSync(marker)).toBe(false);
    });
  }

  it('runs the older release once the newer lockfile is removed (a deliberate downgrade)', async () => {
    const { p, id, marker, v1 } = await upgraded();
    writeFileSync(join(p.project, TOOL), v1);
    await removeLockfiles(p.spaces, id, '2.0.0');
    expect((await run(p, id, marker, { frozen: true })).status).toBe('success');
    expect(existsSync(marker)).toBe(true);
  });

  it('is not blocked by a newer lockfile the user’s key did not sign', async () => {
    const { p, id, marker, v1 } = await upgraded();
    writeFileSync(join(p.project, TOOL), v1);
    const path = join(p.project, LOCK_2);
    writeFileSync(
      path,
      resignLockfile(path, await otherTrustedSigner(p), (l) => l),
    );
    expect((await run(p, id, marker)).status).toBe('success');
    rmSync(marker);
    const unsigned = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
    delete unsigned['_signature'];
    writeFileSync(path, JSON.stringify(unsigned, null, 2));
    expect((await run(p, id, marker)).status).toBe('success');
  });
});

describe('frozen mode', () => {
  it('refuses a tool without a lockfile and writes none (option and RYE_FROZEN=1)', async () => {
    const p = await makeExecProject();
    const id = writeThreadsTool(p);
    await p.sign('tool', 'apps/agent/threads/**');
    const marker = join(p.project, 'markers', 'marker');
    expect((await refusal(run(p, id, marker, { frozen: true }))).code).toBe('LOCKFILE_MISSING');
    expect((await refusal(run(p, id, marker, { env: { ...p.env, RYE_FROZEN: '1' } }))).code).toBe(
      'LOCKFILE_MISSING',
    );
    expect(existsSync(join(p.project, LOCK))).toBe(false);
    expect(existsSync(marker)).toBe(false);
  });

  it('runs a pinned tool and refuses any mismatch', async () => {
    const { p, id, marker } = await pinned();
    expect((await run(p, id, marker, { frozen: true })).metadata).toMatchObject({
      lockfile_used: true,
      lockfile_created: false,
    });
    appendFileSync(join(p.project, THREADS_DIR, 'safety_harness.py'), '# edit\n');
    expect((await refusal(run(p, id, marker, { frozen: true }))).code).toBe('LOCKFILE_MISMATCH');
  });
});

describe('lockfile locations (seed 000 table)', () => {
  const tool = (category: string): string =>
    `__version__ = "2.0.0"\n__tool_type__ = "python"\n__executor_id__ = "rye/core/runtimes/python_script_runtime"\n__category__ = "${category}"\n__tool_description__ = "t"\nprint("{}")\n`;

  it('writes a project tool’s lockfile to <project>/.ai/lockfiles', async () => {
    const p = await makeExecProject();
    p.write('.ai/tools/loc/proj.py', tool('loc'));
    await p.sign('tool', 'loc/proj');
    const res = await execute({ spaces: p.spaces, toolId: 'loc/proj', env: p.env });
    expect(res.metadata.lockfile_path).toBe(
      join(p.project, '.ai/lockfiles/loc/proj@2.0.0.lock.json'),
    );
  });

  for (const space of ['user', 'system'] as const) {
    it(`writes a ${space} tool’s lockfile to <user>/.ai/lockfiles`, async () => {
      const p = await makeExecProject();
      const signer = await readSigner(keyDir(p.spaces));
      p.write(
        '.ai/tools/loc/far.py',
        signText(tool('loc'), { itemType: 'tool', extension: '.py', signer }).text,
        space === 'user' ? p.user : p.system,
      );
      const res = await execute({ spaces: p.spaces, toolId: 'loc/far', env: p.env });
      expect(res.status).toBe('success');
      expect(res.metadata.lockfile_path).toBe(
        join(p.user, '.ai/lockfiles/loc/far@2.0.0.lock.json'),
      );
    });
  }

  it('reads project before user: a project lockfile shadows the user one', async () => {
    const p = await makeExecProject();
    p.write('.ai/tools/loc/proj.py', tool('loc'));
    await p.sign('tool', 'loc/proj');
    const first = await execute({ spaces: p.spaces, toolId: 'loc/proj', env: p.env });
    const projectLock = first.metadata.lockfile_path ?? '';
    p.write('.ai/lockfiles/loc/proj@2.0.0.lock.json', '{"broken": true}', p.user);
    const second = await execute({ spaces: p.spaces, toolId: 'loc/proj', env: p.env });
    expect(second.metadata).toMatchObject({ lockfile_used: true, lockfile_path: projectLock });
  });
});
