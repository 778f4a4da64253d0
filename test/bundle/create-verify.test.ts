import { symlinkSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  assertBundleOk,
  createBundle,
  listBundles,
  parseManifest,
  serializeManifest,
  verifyBundle,
  type BundleReport,
} from '../../src/bundle/index.js';
import { sha256Hex, signText, type Signer, type TrustSet } from '../../src/integrity/index.js';
import { DIRECTIVE } from '../helpers/items.js';
import { makeSigner } from '../helpers/keys.js';
import { refusal } from '../helpers/refusal.js';
import {
  TASK_MANAGER_FILES,
  TASK_MANAGER_ID,
  TINY_PNG,
  writeTaskManager,
} from '../helpers/task-manager.js';
import { makeTempSpaces, type TempSpaces } from '../helpers/temp-space.js';

const NOW = new Date('2026-02-11T00:00:00Z');
const FILE_COUNT = Object.keys(TASK_MANAGER_FILES).length;

interface Fixture {
  spaces: TempSpaces;
  signer: Signer;
  trust: TrustSet;
  manifestPath: string;
}

async function bundled(before?: (spaces: TempSpaces, signer: Signer) => void): Promise<Fixture> {
  const spaces = makeTempSpaces();
  const { signer, trust } = makeSigner();
  writeTaskManager(spaces, signer);
  before?.(spaces, signer);
  const created = await createBundle({
    spaces,
    bundleId: TASK_MANAGER_ID,
    version: '1.0.0',
    entrypoint: { itemType: 'directive', itemId: `${TASK_MANAGER_ID}/build_crud_app` },
    description: 'CRUD task manager with React + Express + SQLite',
    includes: ['task-manager'],
    signer,
    now: NOW,
  });
  return { spaces, signer, trust, manifestPath: created.path };
}

const verify = (f: Fixture): Promise<BundleReport> =>
  verifyBundle({ spaces: f.spaces, bundleId: TASK_MANAGER_ID, trust: f.trust });

describe('createBundle() and verifyBundle()', () => {
  it('createBundle() lists every bundle file with its inline_signed flag, and verify passes', async () => {
    const progress: number[] = [];
    const spaces = makeTempSpaces();
    const { signer, trust } = makeSigner();
    writeTaskManager(spaces, signer);
    const created = await createBundle({
      spaces,
      bundleId: TASK_MANAGER_ID,
      version: '1.0.0',
      includes: ['task-manager/'],
      signer,
      now: NOW,
      onProgress: (done) => progress.push(done),
    });
    expect(created.path).toBe(join(spaces.project, '.ai/bundles/apps/task-manager/manifest.yaml'));
    expect(created.fileCount).toBe(FILE_COUNT);
    expect(created.bytes).toBeGreaterThan(TINY_PNG.length);
    expect(progress.at(-1)).toBe(FILE_COUNT);
    const flags = Object.fromEntries(
      [...created.manifest.files].map(([path, entry]) => [path, entry.inlineSigned]),
    );
    expect(flags).toEqual(TASK_MANAGER_FILES);
    expect(created.manifest.bundle.includes).toEqual(['task-manager']);
    expect(created.manifest.bundle.createdAt).toBe('2026-02-11T00:00:00Z');

    const text = readFileSync(created.path, 'utf8');
    expect(text.startsWith('# rye:signed:2026-02-11T00:00:00Z:')).toBe(true);
    expect(parseManifest(text, created.path)).toEqual(created.manifest);

    const report = await verifyBundle({ spaces, bundleId: TASK_MANAGER_ID, trust });
    expect(report.ok).toBe(true);
    expect(report.manifest.verdict).toBe('ok');
    expect(report.files.ok).toEqual(Object.keys(TASK_MANAGER_FILES));
    expect(report.counts).toEqual({
      listed: FILE_COUNT,
      ok: FILE_COUNT,
      missing: 0,
      tampered: 0,
      unlisted: 0,
      badSignature: 0,
    });
    expect(() => assertBundleOk(report)).not.toThrow();
    expect(await listBundles(spaces)).toEqual([
      {
        bundleId: TASK_MANAGER_ID,
        space: 'project',
        path: created.path,
        version: '1.0.0',
        fileCount: FILE_COUNT,
      },
    ]);
  });

  it('verifyBundle() reports an edited JSX file as tampered', async () => {
    const f = await bundled();
    f.spaces.write('task-manager/client/src/App.jsx', 'export const App = () => null;\n');
    const report = await verify(f);
    expect(report.ok).toBe(false);
    expect(report.files.tampered).toEqual([
      {
        path: 'task-manager/client/src/App.jsx',
        expected: expect.stringMatching(/^[0-9a-f]{64}$/),
        actual: expect.stringMatching(/^[0-9a-f]{64}$/),
      },
    ]);
    expect(report.counts.ok).toBe(FILE_COUNT - 1);
    const error = await refusal(Promise.resolve().then(() => assertBundleOk(report)));
    expect(error.code).toBe('BUNDLE_VERIFY_FAILED');
    expect(error.message).toContain('task-manager/client/src/App.jsx');
  });

  it('verifyBundle() reports an edited PNG as tampered', async () => {
    const f = await bundled();
    const png = Buffer.from(TINY_PNG);
    png[png.length - 20] = (png[png.length - 20] ?? 0) ^ 0xff;
    f.spaces.write('task-manager/client/public/logo.png', png);
    const report = await verify(f);
    expect(report.files.tampered.map((t) => t.path)).toEqual([
      'task-manager/client/public/logo.png',
    ]);
    expect(report.ok).toBe(false);
  });

  it('verifyBundle() reports a deleted file as missing', async () => {
    const f = await bundled();
    rmSync(join(f.spaces.project, '.ai/plans/task-manager/phase_1/plan_db_schema.md'));
    const report = await verify(f);
    expect(report.files.missing).toEqual(['.ai/plans/task-manager/phase_1/plan_db_schema.md']);
    expect(report.files.tampered).toEqual([]);
    expect(report.ok).toBe(false);
  });

  it('verifyBundle() reports a file added to a bundle folder as unlisted', async () => {
    const f = await bundled();
    f.spaces.write('task-manager/client/src/evil.js', 'fetch("https://attacker.example");\n');
    f.spaces.write('task-manager/node_modules/y/index.js', 'excluded, not unlisted\n');
    const report = await verify(f);
    expect(report.files.unlisted).toEqual(['task-manager/client/src/evil.js']);
    expect(report.counts.ok).toBe(FILE_COUNT);
    expect(report.ok).toBe(false);
  });

  it('verifyBundle() refuses an edited manifest on its signature and checks no file', async () => {
    const f = await bundled();
    const text = readFileSync(f.manifestPath, 'utf8');
    writeFileSync(f.manifestPath, text.replace('version: 1.0.0', 'version: 1.0.1'));
    rmSync(join(f.spaces.project, 'task-manager/package.json'));
    const report = await verify(f);
    expect(report.ok).toBe(false);
    expect(report.manifest.verdict).toBe('hash_mismatch');
    expect(report.manifest.code).toBe('INTEGRITY_HASH_MISMATCH');
    expect(report.version).toBeNull();
    expect(report.counts).toEqual({
      listed: 0,
      ok: 0,
      missing: 0,
      tampered: 0,
      unlisted: 0,
      badSignature: 0,
    });
    const error = await refusal(Promise.resolve().then(() => assertBundleOk(report)));
    expect(error.code).toBe('INTEGRITY_HASH_MISMATCH');
  });

  it('verifyBundle() refuses a manifest signed by an untrusted key', async () => {
    const f = await bundled();
    const stranger = makeSigner('stranger');
    const report = await verifyBundle({
      spaces: f.spaces,
      bundleId: TASK_MANAGER_ID,
      trust: stranger.trust,
    });
    expect(report.ok).toBe(false);
    expect(report.manifest.code).toBe('INTEGRITY_UNTRUSTED_KEY');
    expect(report.manifest.fingerprint).toBe(f.signer.fingerprint);
    expect(report.counts.listed).toBe(0);
  });

  it('verifyBundle() catches a broken inline signature whose manifest hash matches', async () => {
    const directive = '.ai/directives/apps/task-manager/scaffold_project.md';
    const f = await bundled();
    // createBundle() refuses to vouch for a broken item, so the manifest is forged
    // here: it lists the edited bytes, signed by the trusted key.
    const path = join(f.spaces.project, directive);
    writeFileSync(path, readFileSync(path, 'utf8').replace('Do it.', 'Delete everything.'));
    const manifest = parseManifest(readFileSync(f.manifestPath, 'utf8'), f.manifestPath);
    const files = new Map(manifest.files);
    files.set(directive, { sha256: sha256Hex(readFileSync(path)), inlineSigned: true });
    const body = serializeManifest({ ...manifest, files });
    writeFileSync(
      f.manifestPath,
      signText(body, { itemType: 'tool', extension: '.yaml', signer: f.signer }).text,
    );
    const report = await verify(f);
    expect(report.files.tampered).toEqual([]);
    expect(report.files.badSignature).toEqual([
      { path: directive, code: 'INTEGRITY_HASH_MISMATCH', message: expect.any(String) },
    ]);
    expect(report.ok).toBe(false);
  });
});

describe('bundle refusals', () => {
  it('createBundle() refuses a link inside a bundle folder, naming it', async () => {
    const spaces = makeTempSpaces();
    const { signer } = makeSigner();
    writeTaskManager(spaces, signer);
    symlinkSync('/etc/passwd', join(spaces.project, 'task-manager/client/src/passwd.js'));
    const error = await refusal(
      createBundle({
        spaces,
        bundleId: TASK_MANAGER_ID,
        version: '1.0.0',
        includes: ['task-manager'],
        signer,
      }),
    );
    expect(error.code).toBe('BUNDLE_MANIFEST_INVALID');
    expect(error.message).toContain('task-manager/client/src/passwd.js');
    expect(error.message).toContain('never contain links');
  });

  it('verifyBundle() reports a link that appeared after signing as unlisted', async () => {
    const f = await bundled();
    symlinkSync('/etc/passwd', join(f.spaces.project, 'task-manager/client/src/passwd.js'));
    expect((await verify(f)).files.unlisted).toEqual(['task-manager/client/src/passwd.js']);
  });

  it('createBundle() refuses includes that leave the project or enter .ai/ as usage errors', async () => {
    const spaces = makeTempSpaces();
    const { signer } = makeSigner();
    writeTaskManager(spaces, signer);
    for (const include of ['../outside', '/etc', '.ai', '.ai/threads']) {
      const error = await refusal(
        createBundle({
          spaces,
          bundleId: TASK_MANAGER_ID,
          version: '1.0.0',
          includes: [include],
          signer,
        }),
      );
      expect(error.code).toBe('USAGE_INVALID_ARGUMENT');
    }
  });

  it('createBundle() refuses a bad version, a missing entrypoint and an empty bundle', async () => {
    const spaces = makeTempSpaces();
    const { signer } = makeSigner();
    const base = { spaces, bundleId: 'apps/nothing', signer };
    expect((await refusal(createBundle({ ...base, version: 'v1' }))).code).toBe(
      'USAGE_INVALID_ARGUMENT',
    );
    expect((await refusal(createBundle({ ...base, version: '1.0.0' }))).code).toBe('BUNDLE_EMPTY');
    const entrypoint = { itemType: 'directive', itemId: 'apps/nothing/start' } as const;
    expect((await refusal(createBundle({ ...base, version: '1.0.0', entrypoint }))).code).toBe(
      'ITEM_NOT_FOUND',
    );
  });

  it('createBundle() refuses an entrypoint that is not one of the bundle files', async () => {
    const spaces = makeTempSpaces();
    const { signer } = makeSigner();
    writeTaskManager(spaces, signer);
    spaces.write('.ai/directives/apps/other/start.md', DIRECTIVE('start', 'apps/other'));
    const error = await refusal(
      createBundle({
        spaces,
        bundleId: TASK_MANAGER_ID,
        version: '1.0.0',
        entrypoint: { itemType: 'directive', itemId: 'apps/other/start' },
        signer,
      }),
    );
    expect(error.code).toBe('BUNDLE_MANIFEST_INVALID');
    expect(error.message).toContain('not one of the bundle');
  });

  it('verifyBundle() throws BUNDLE_NOT_FOUND when no space has the manifest', async () => {
    const { trust } = makeSigner();
    const error = await refusal(
      verifyBundle({ spaces: makeTempSpaces(), bundleId: TASK_MANAGER_ID, trust }),
    );
    expect(error.code).toBe('BUNDLE_NOT_FOUND');
  });

  it('verifyBundle() refuses a signed manifest listing files outside its bundle', async () => {
    const f = await bundled();
    const manifest = parseManifest(readFileSync(f.manifestPath, 'utf8'), f.manifestPath);
    const files = new Map(manifest.files);
    files.set('.ai/tools/rye/core/other.py', { sha256: '0'.repeat(64), inlineSigned: false });
    const body = serializeManifest({ ...manifest, files });
    const text = signText(body, { itemType: 'tool', extension: '.yaml', signer: f.signer }).text;
    writeFileSync(f.manifestPath, text);
    const error = await refusal(verify(f));
    expect(error.code).toBe('BUNDLE_MANIFEST_INVALID');
    expect(error.message).toContain('.ai/tools/rye/core/other.py');
  });
});

describe('verifyBundle() and links on the way', () => {
  it('reports a listed file reached through a folder swapped for a link as tampered', async () => {
    const { mkdirSync, renameSync, cpSync } = await import('node:fs');
    const f = await bundled();
    const components = join(f.spaces.project, 'task-manager/client/src/components');
    const outside = join(f.spaces.root, 'outside-components');
    mkdirSync(outside, { recursive: true });
    cpSync(components, outside, { recursive: true });
    renameSync(components, `${components}.moved`);
    symlinkSync(outside, components);
    const report = await verify(f);
    expect(report.ok).toBe(false);
    expect(report.files.tampered.map((t) => t.path)).toContain(
      'task-manager/client/src/components/TaskList.jsx',
    );
  });
});

describe('createBundle() and the lane rule', () => {
  const create = (spaces: TempSpaces, signer: Signer, extra: object = {}) =>
    createBundle({
      spaces,
      bundleId: TASK_MANAGER_ID,
      version: '1.0.0',
      includes: ['task-manager'],
      signer,
      now: NOW,
      ...extra,
    });

  it('never lists dot-paths nor node_modules, whatever the excludes', async () => {
    const spaces = makeTempSpaces();
    const { signer } = makeSigner();
    writeTaskManager(spaces, signer);
    spaces.write('task-manager/.env', 'SECRET=1\n');
    spaces.write('task-manager/.npmrc', 'registry=https://evil.example\n');
    spaces.write('task-manager/client/.git/hooks/pre-commit', 'echo hook\n');
    spaces.write('.ai/tools/apps/task-manager/.env', 'SECRET=1\n');
    spaces.write('.ai/tools/apps/task-manager/node_modules/dep/index.js', 'module.exports = 1;\n');
    const created = await create(spaces, signer, { exclude: ['__pycache__'] });
    expect(Object.keys(TASK_MANAGER_FILES).every((p) => created.manifest.files.has(p))).toBe(true);
    expect(
      [...created.manifest.files.keys()].filter((p) => /(^|\/)(\.|node_modules)/.test(p.slice(4))),
    ).toEqual([]);
  });

  it('refuses an include that is a dot-path, a dependency folder or a file', async () => {
    const spaces = makeTempSpaces();
    const { signer } = makeSigner();
    writeTaskManager(spaces, signer);
    spaces.write('package.json', '{}\n');
    spaces.write('tsconfig.json', '{}\n');
    spaces.write('.venv/bin/python', '#!/bin/sh\n');
    for (const include of [
      '.env',
      '.git',
      '.venv',
      'node_modules',
      'task-manager/node_modules',
      'package.json',
      'tsconfig.json',
    ]) {
      const error = await refusal(create(spaces, signer, { includes: [include] }));
      expect(error.code, include).toBe('USAGE_INVALID_ARGUMENT');
      expect(error.message, include).toContain(include);
    }
    expect(await listBundles(spaces)).toEqual([]);
  });

  it('includeNodeModules lists every file of the app folders’ node_modules; verify sees a planted one', async () => {
    const f = await bundled();
    f.spaces.write('task-manager/node_modules/dep/dist/index.js', 'module.exports = 2;\n');
    f.spaces.write('task-manager/node_modules/.package-lock.json', '{}\n');
    const created = await create(f.spaces, f.signer, { includeNodeModules: true, force: true });
    const modules = [...created.manifest.files.keys()].filter((p) => p.includes('node_modules'));
    expect(modules).toEqual([
      'task-manager/node_modules/dep/dist/index.js',
      'task-manager/node_modules/x/index.js',
    ]);
    expect((await verify(f)).ok).toBe(true);
    f.spaces.write('task-manager/node_modules/evil/index.js', 'planted\n');
    expect((await verify(f)).files.unlisted).toEqual(['task-manager/node_modules/evil/index.js']);
  });
});
