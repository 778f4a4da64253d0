import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseManifest, serializeManifest } from '../../src/bundle/index.js';
import { readSigner, sha256Hex, signText } from '../../src/integrity/index.js';
import { keyDir } from '../../src/items/index.js';
import { rye } from '../helpers/cli.js';
import { makeExecProject, type ExecProject } from '../helpers/exec-project.js';
import { TASK_MANAGER_FILES, TASK_MANAGER_ID, writeTaskManager } from '../helpers/task-manager.js';

async function project(): Promise<ExecProject> {
  const p = await makeExecProject();
  writeTaskManager(p, await readSigner(keyDir(p.spaces)));
  return p;
}

const cli = (p: ExecProject, ...args: string[]) =>
  rye([...args, '--project', p.project], { env: p.env });
const CREATE = [
  'bundle',
  'create',
  TASK_MANAGER_ID,
  '--version',
  '1.0.0',
  '--include',
  'task-manager',
  '--entrypoint',
  'directive:apps/task-manager/build_crud_app',
  '--description',
  'CRUD task manager',
];

describe('rye bundle', () => {
  it('create writes a signed manifest listing every file; verify, inspect and list read it', async () => {
    const p = await project();
    const created = await cli(p, ...CREATE, '--json');
    expect(created.code, created.stdout + created.stderr).toBe(0);
    const manifestPath = join(p.project, '.ai/bundles/apps/task-manager/manifest.yaml');
    expect(created.json()).toMatchObject({
      ok: true,
      path: manifestPath,
      files: Object.keys(TASK_MANAGER_FILES).length,
    });
    expect(readFileSync(manifestPath, 'utf8')).toMatch(
      /^# rye:signed:\S+\nbundle:\n {2}id: apps\/task-manager\n/,
    );

    const verified = await cli(p, 'bundle', 'verify', TASK_MANAGER_ID, '--json');
    expect(verified.code, verified.stdout).toBe(0);
    expect(verified.json()).toMatchObject({ ok: true });

    const inspected = await cli(p, 'bundle', 'inspect', TASK_MANAGER_ID, '--json');
    const doc = inspected.json<{
      signature: { ok: boolean };
      files: { path: string; inline_signed: boolean }[];
    }>();
    expect(doc.signature.ok).toBe(true);
    expect(Object.fromEntries(doc.files.map((f) => [f.path, f.inline_signed]))).toEqual(
      TASK_MANAGER_FILES,
    );

    const listed = await cli(p, 'bundle', 'list', '--json');
    expect(listed.json<{ bundles: unknown[] }>().bundles).toEqual([
      expect.objectContaining({ bundle_id: TASK_MANAGER_ID, space: 'project' }),
    ]);
  });

  it('verify exits 3 and names the changed and the unlisted files', async () => {
    const p = await project();
    await cli(p, ...CREATE);
    appendFileSync(join(p.project, 'task-manager/client/src/App.jsx'), '// injected\n');
    p.write('task-manager/client/src/extra.js', 'fetch("https://evil.example")\n');
    const res = await cli(p, 'bundle', 'verify', TASK_MANAGER_ID);
    expect(res.code).toBe(3);
    expect(res.stdout).toContain('changed    task-manager/client/src/App.jsx');
    expect(res.stdout).toContain('unlisted   task-manager/client/src/extra.js');
  });

  it('refuses a bad version as a usage error', async () => {
    const p = await project();
    const res = await cli(p, 'bundle', 'create', TASK_MANAGER_ID, '--version', 'one', '--json');
    expect(res.code).toBe(2);
  });
});

describe('rye bundle and the lane rule', () => {
  const errorCode = (res: { json: () => Record<string, unknown> }) =>
    (res.json() as { error: { code: string } }).error.code;
  const MANIFEST = '.ai/bundles/apps/task-manager/manifest.yaml';

  it('create refuses dot-paths, dependency folders and root files as includes; writes nothing', async () => {
    const p = await project();
    p.write('.env', 'SECRET=1\n');
    p.write('tsconfig.json', '{}\n');
    for (const include of [
      '.env',
      '.git',
      '.venv',
      'node_modules',
      'tsconfig.json',
      '.ai/tools/x',
    ]) {
      const res = await cli(
        p,
        'bundle',
        'create',
        TASK_MANAGER_ID,
        '--version',
        '1.0.0',
        '--include',
        include,
        '--json',
      );
      // The include is command-line input: a usage error (exit 2), not a hostile manifest.
      expect(res.code, include).toBe(2);
      expect(errorCode(res), include).toBe('USAGE_INVALID_ARGUMENT');
    }
    expect(existsSync(join(p.project, MANIFEST))).toBe(false);
  });

  it('create refuses an app folder of another bundle (BUNDLE_FOLDER_CLAIMED)', async () => {
    const p = await project();
    expect((await cli(p, ...CREATE)).code).toBe(0);
    p.write('.ai/tools/apps/other/run.py', 'print(1)\n');
    const res = await cli(
      p,
      'bundle',
      'create',
      'apps/other',
      '--version',
      '1.0.0',
      '--include',
      'task-manager/client',
      '--json',
    );
    expect(res.code).toBe(3);
    expect(errorCode(res)).toBe('BUNDLE_FOLDER_CLAIMED');
    expect(existsSync(join(p.project, '.ai/bundles/apps/other'))).toBe(false);
  });

  it('--include-node-modules lists the app’s dependencies, which verify then checks', async () => {
    const p = await project();
    const res = await cli(p, ...CREATE, '--include-node-modules', '--json');
    expect(res.code, res.stdout + res.stderr).toBe(0);
    const manifest = readFileSync(join(p.project, MANIFEST), 'utf8');
    expect(manifest).toContain('task-manager/node_modules/x/index.js');
    p.write('task-manager/node_modules/evil/index.js', 'planted\n');
    const verified = await cli(p, 'bundle', 'verify', TASK_MANAGER_ID);
    expect(verified.code).toBe(3);
    expect(verified.stdout).toContain('unlisted   task-manager/node_modules/evil/index.js');
  });

  for (const [what, stray, include] of [
    ['the project .env', '.env', null],
    ['a dot-path in its app folder', 'task-manager/.npmrc', null],
    ['another item’s folder', '.ai/tools/apps/task-manager2/run.py', null],
    ['an app folder named .venv', '.venv/bin/python', '.venv'],
  ] as const) {
    it(`verify refuses a manifest signed by the user that lists ${what}`, async () => {
      const p = await project();
      await cli(p, ...CREATE);
      const path = join(p.project, MANIFEST);
      const manifest = parseManifest(readFileSync(path, 'utf8'), path);
      p.write(stray, 'EVIL=1\n');
      const files = new Map(manifest.files).set(stray, {
        sha256: sha256Hex('EVIL=1\n'),
        inlineSigned: false,
      });
      const includes =
        include === null ? manifest.bundle.includes : [...manifest.bundle.includes, include];
      const body = serializeManifest({
        bundle: { ...manifest.bundle, includes },
        files: new Map([...files].sort(([a], [b]) => (a < b ? -1 : 1))),
      });
      const signer = await readSigner(keyDir(p.spaces));
      writeFileSync(path, signText(body, { itemType: 'tool', extension: '.yaml', signer }).text);
      const res = await cli(p, 'bundle', 'verify', TASK_MANAGER_ID, '--json');
      expect(res.code).toBe(3);
      expect(errorCode(res)).toBe('BUNDLE_MANIFEST_INVALID');
      expect(res.json<{ error: { message: string } }>().error.message).toContain(include ?? stray);
    });
  }
});

describe('the rye/core/bundler/bundler tool', () => {
  it('runs the same actions through the executor chain', async () => {
    const p = await project();
    const run = (params: object) =>
      cli(
        p,
        'execute',
        'tool',
        'rye/core/bundler/bundler',
        '--params',
        JSON.stringify(params),
        '--json',
      );
    const created = await run({
      action: 'create',
      bundle_id: TASK_MANAGER_ID,
      version: '1.0.0',
      include: ['task-manager'],
    });
    expect(created.code, created.stdout + created.stderr).toBe(0);
    expect(created.json()).toMatchObject({
      status: 'success',
      data: { success: true, files: Object.keys(TASK_MANAGER_FILES).length },
    });
    const ok = await run({ action: 'verify', bundle_id: TASK_MANAGER_ID });
    expect(ok.json()).toMatchObject({ status: 'success', data: { ok: true } });
    appendFileSync(join(p.project, 'task-manager/client/src/styles.css'), '.x{}\n');
    const bad = await run({ action: 'verify', bundle_id: TASK_MANAGER_ID });
    expect(bad.code).toBe(1);
    expect(bad.json()).toMatchObject({ status: 'error', data: { success: false } });
  });
});
