import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  BUNDLER_ACTIONS,
  reportJson,
  runBundlerAction,
  type BundleReport,
} from '../../src/bundle/index.js';
import { generateKeyFiles, readSigner, signText } from '../../src/integrity/index.js';
import { ensureSelfTrusted, keyDir, resolveSpaces, type Spaces } from '../../src/items/index.js';
import { refusal } from '../helpers/refusal.js';
import { TASK_MANAGER_FILES, TASK_MANAGER_ID, writeTaskManager } from '../helpers/task-manager.js';
import { makeTempSpaces, type TempSpaces } from '../helpers/temp-space.js';

const FILES = Object.keys(TASK_MANAGER_FILES).length;

afterEach(() => {
  vi.unstubAllEnvs();
});

/** Temp spaces with the user's own key, trusted, and the task manager written and signed by it. */
async function project(): Promise<{ t: TempSpaces; spaces: Spaces }> {
  const t = makeTempSpaces();
  const spaces = resolveSpaces({ project: t.project, env: t.env });
  await generateKeyFiles(keyDir(spaces));
  const signer = await readSigner(keyDir(spaces));
  await ensureSelfTrusted(spaces, signer);
  writeTaskManager(t, signer);
  return { t, spaces };
}

const CREATE = {
  action: 'create',
  bundle_id: TASK_MANAGER_ID,
  version: '1.0.0',
  include: ['task-manager'],
};

describe('runBundlerAction()', () => {
  it('creates, lists, verifies and inspects a bundle, with progress', async () => {
    const { spaces } = await project();
    const progress: number[] = [];
    const created = await runBundlerAction(
      spaces,
      {
        ...CREATE,
        entrypoint: `directive:${TASK_MANAGER_ID}/build_crud_app`,
        description: 'CRUD app',
        include_node_modules: false,
        force: false,
      },
      { onProgress: (done) => progress.push(done) },
    );
    expect(created).toMatchObject({
      ok: true,
      bundle_id: TASK_MANAGER_ID,
      version: '1.0.0',
      files: FILES,
      path: join(spaces.project, '.ai/bundles/apps/task-manager/manifest.yaml'),
    });
    expect(progress.at(-1)).toBe(FILES);

    expect(await runBundlerAction(spaces, { action: 'list' })).toEqual({
      ok: true,
      bundles: [
        {
          bundle_id: TASK_MANAGER_ID,
          space: 'project',
          path: created['path'],
          version: '1.0.0',
          file_count: FILES,
        },
      ],
    });

    const checked: number[] = [];
    const verified = await runBundlerAction(
      spaces,
      { action: 'verify', bundle_id: TASK_MANAGER_ID },
      { onProgress: (done) => checked.push(done) },
    );
    expect(verified).toMatchObject({
      ok: true,
      message: `Bundle ${TASK_MANAGER_ID} verified: ${FILES} files`,
      counts: { listed: FILES, ok: FILES, bad_signature: 0 },
    });
    expect(checked.at(-1)).toBe(FILES);

    const inspected = await runBundlerAction(spaces, {
      action: 'inspect',
      bundle_id: TASK_MANAGER_ID,
    });
    expect(inspected).toMatchObject({
      ok: true,
      space: 'project',
      bundle: {
        id: TASK_MANAGER_ID,
        version: '1.0.0',
        entrypoint: { item_type: 'directive', item_id: `${TASK_MANAGER_ID}/build_crud_app` },
        description: 'CRUD app',
        includes: ['task-manager'],
      },
      signature: { ok: true, verdict: 'ok', code: null },
    });
    expect(inspected['files']).toContainEqual({
      path: 'task-manager/package.json',
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      inline_signed: false,
    });
  });

  it('resolves the spaces of a project folder, and inspects a bundle without an entrypoint', async () => {
    const { t } = await project();
    vi.stubEnv('RYE_USER_SPACE', t.user);
    vi.stubEnv('RYE_SYSTEM_SPACE', t.system);
    const created = await runBundlerAction(t.project, {
      ...CREATE,
      entrypoint: '',
      description: null,
      include_node_modules: null,
    });
    expect(created).toMatchObject({ ok: true, files: FILES });
    const inspected = await runBundlerAction(t.project, {
      action: 'inspect',
      bundle_id: TASK_MANAGER_ID,
    });
    expect(inspected).toMatchObject({ bundle: { entrypoint: null, description: '' } });
  });

  it('reports a changed bundle, and one whose manifest fails, as not ok with a message', async () => {
    const { t, spaces } = await project();
    const created = await runBundlerAction(spaces, CREATE);
    t.write('task-manager/package.json', '{}\n');
    t.write('task-manager/planted.js', 'evil()\n');
    const changed = await runBundlerAction(spaces, {
      action: 'verify',
      bundle_id: TASK_MANAGER_ID,
    });
    expect(changed).toMatchObject({
      ok: false,
      message: `Cannot verify bundle ${TASK_MANAGER_ID}: 1 changed, 1 unlisted`,
      files: { unlisted: ['task-manager/planted.js'] },
    });
    writeFileSync(created['path'] as string, 'bundle: {}\n');
    const unsigned = await runBundlerAction(spaces, {
      action: 'verify',
      bundle_id: TASK_MANAGER_ID,
    });
    expect(unsigned).toMatchObject({
      ok: false,
      version: null,
      message: `Cannot verify bundle ${TASK_MANAGER_ID}: its manifest failed (INTEGRITY_UNSIGNED)`,
    });
  });

  it('lists a manifest that does not parse, or declares another bundle, with its error', async () => {
    const { t, spaces } = await project();
    const signer = await readSigner(keyDir(spaces));
    t.write('.ai/bundles/apps/broken/manifest.yaml', ':: not yaml\n');
    const other = (await runBundlerAction(spaces, CREATE))['path'] as string;
    const body = readFileSync(other, 'utf8').replace(/^# rye:signed:.*\n/, '');
    t.write(
      '.ai/bundles/apps/copy/manifest.yaml',
      signText(body, { itemType: 'tool', extension: '.yaml', signer }).text,
    );
    const listed = (await runBundlerAction(spaces, { action: 'list' }))['bundles'];
    expect(listed).toEqual([
      {
        bundle_id: 'apps/broken',
        space: 'project',
        path: join(spaces.project, '.ai/bundles/apps/broken/manifest.yaml'),
        error: { code: 'BUNDLE_MANIFEST_INVALID', message: expect.any(String) },
      },
      {
        bundle_id: 'apps/copy',
        space: 'project',
        path: join(spaces.project, '.ai/bundles/apps/copy/manifest.yaml'),
        error: {
          code: 'BUNDLE_MANIFEST_INVALID',
          message: expect.stringContaining(`it declares bundle ${TASK_MANAGER_ID}, not apps/copy`),
        },
      },
      expect.objectContaining({ bundle_id: TASK_MANAGER_ID, version: '1.0.0' }),
    ]);
  });

  it.each([
    [{}, `action must be one of ${BUNDLER_ACTIONS.join(', ')}`],
    [{ action: 7 }, 'action must be one of'],
    [{ action: 'delete' }, 'action must be one of'],
    [{ action: 'verify' }, 'bundle_id is required'],
    [{ action: 'verify', bundle_id: '' }, 'bundle_id is required'],
    [{ ...CREATE, version: 1 }, 'version is required'],
    [{ ...CREATE, entrypoint: 'tool' }, 'entrypoint must look like item_type:item_id'],
    [{ ...CREATE, entrypoint: 3 }, 'entrypoint must look like item_type:item_id'],
    [{ ...CREATE, description: 5 }, 'description must be a string'],
    [{ ...CREATE, include: 'task-manager' }, 'include must be a list of strings'],
    [{ ...CREATE, exclude: [1] }, 'exclude must be a list of strings'],
    [{ ...CREATE, include_node_modules: 'yes' }, 'include_node_modules must be true or false'],
    [{ ...CREATE, force: 1 }, 'force must be true or false'],
  ])('refuses bad parameters with USAGE_INVALID_ARGUMENT: %j', async (params, why) => {
    const spaces = resolveSpaces({ project: makeTempSpaces().project });
    const refused = await refusal(runBundlerAction(spaces, params));
    expect(refused.code).toBe('USAGE_INVALID_ARGUMENT');
    expect(refused.message).toContain(`Cannot run the bundler: ${why}`);
  });

  it('creates with the excludes given, which verify does not know: an excluded file is unlisted', async () => {
    const { spaces } = await project();
    const created = await runBundlerAction(spaces, {
      ...CREATE,
      exclude: ['styles.css', '__pycache__'],
    });
    expect(created).toMatchObject({ ok: true, files: FILES - 1 });
    const verified = await runBundlerAction(spaces, {
      action: 'verify',
      bundle_id: TASK_MANAGER_ID,
    });
    expect(verified).toMatchObject({
      ok: false,
      files: { unlisted: ['task-manager/client/src/styles.css'] },
    });
  });

  it('takes a null include and exclude as none: no app folder, and no default excludes', async () => {
    const { spaces } = await project();
    const created = await runBundlerAction(spaces, { ...CREATE, include: null, exclude: null });
    // The nine item files, and the __pycache__ file the default excludes leave out.
    expect(created).toMatchObject({ ok: true, files: 10 });
  });
});

describe('reportJson()', () => {
  const base: BundleReport = {
    ok: false,
    bundleId: 'apps/x',
    version: '1.0.0',
    space: 'project',
    manifestPath: '/p/.ai/bundles/apps/x/manifest.yaml',
    manifest: { ok: true, verdict: 'ok', code: null, message: '', fingerprint: null, signer: null },
    files: { ok: [], missing: [], tampered: [], unlisted: [], badSignature: [] },
    counts: { listed: 0, ok: 0, missing: 0, tampered: 0, unlisted: 0, badSignature: 0 },
  };

  it('names every kind of problem, in snake_case', () => {
    const json = reportJson({
      ...base,
      files: {
        ...base.files,
        missing: ['a'],
        badSignature: [{ path: 'b', code: 'INTEGRITY_BAD_SIGNATURE', message: 'x' }],
      },
      counts: { ...base.counts, missing: 1, badSignature: 1 },
    });
    expect(json['message']).toBe(
      'Cannot verify bundle apps/x: 1 missing, 1 with a bad inline signature',
    );
    expect(json['files']).toMatchObject({ bad_signature: [{ path: 'b' }] });
    expect(json['counts']).toEqual({
      listed: 0,
      ok: 0,
      missing: 1,
      tampered: 0,
      unlisted: 0,
      bad_signature: 1,
    });
  });
});
