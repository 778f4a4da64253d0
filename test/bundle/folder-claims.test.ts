import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { claimConflict, createBundle, type FolderClaim } from '../../src/bundle/index.js';
import { pullBundle } from '../../src/registry/index.js';
import { makeSigner } from '../helpers/keys.js';
import { refusal } from '../helpers/refusal.js';
import { makeTempSpaces, type TempSpaces } from '../helpers/temp-space.js';
import {
  bundleAnswer,
  clientSpaces,
  makeKey,
  serveIndex,
  serveKey,
  sessionFor,
  snapshot,
  startFakeRegistry,
} from '../registry/client/fixtures.js';

describe('claimConflict()', () => {
  const claims: FolderClaim[] = [
    { bundleId: 'apps/todo', folder: 'apps/todo', kind: 'app' },
    { bundleId: 'apps/x/y', folder: '.ai/tools/apps/x/y', kind: 'items' },
  ];

  it('refuses an app folder equal to, inside or holding another bundle’s', () => {
    for (const include of ['apps/todo', 'apps/todo/web', 'apps']) {
      expect(claimConflict([include], [], claims)?.claim.bundleId, include).toBe('apps/todo');
    }
  });

  it('refuses a path below a claimed folder, and nothing else (no prefix look-alikes)', () => {
    expect(claimConflict([], ['apps/todo/index.js'], claims)?.path).toBe('apps/todo/index.js');
    expect(claimConflict([], ['.ai/tools/apps/x/y/run.py'], claims)?.claim.kind).toBe('items');
    expect(claimConflict(['apps/todo2'], ['apps/todo2/index.js'], claims)).toBe(undefined);
    expect(claimConflict([], ['.ai/tools/apps/x/yz/run.py'], claims)).toBe(undefined);
  });
});

async function withTodo(): Promise<{
  spaces: TempSpaces;
  signer: ReturnType<typeof makeSigner>['signer'];
}> {
  const spaces = makeTempSpaces();
  const { signer } = makeSigner();
  spaces.write('.ai/tools/apps/todo/run.py', 'print(1)\n');
  spaces.write('apps/todo/index.js', 'export const todo = 1;\n');
  await createBundle({
    spaces,
    bundleId: 'apps/todo',
    version: '1.0.0',
    includes: ['apps/todo'],
    signer,
  });
  return { spaces, signer };
}

describe('createBundle() and another bundle’s folders', () => {
  it('refuses an app folder inside another bundle’s, and writes no manifest', async () => {
    const { spaces, signer } = await withTodo();
    spaces.write('.ai/tools/apps/todo2/run.py', 'print(2)\n');
    const error = await refusal(
      createBundle({
        spaces,
        bundleId: 'apps/todo2',
        version: '1.0.0',
        includes: ['apps'],
        signer,
      }),
    );
    expect(error.code).toBe('BUNDLE_FOLDER_CLAIMED');
    expect(error.message).toContain('the app folder of bundle apps/todo');
    expect(existsSync(join(spaces.project, '.ai/bundles/apps/todo2'))).toBe(false);
  });

  it('accepts a look-alike folder apps/todo2 beside apps/todo', async () => {
    const { spaces, signer } = await withTodo();
    spaces.write('apps/todo2/index.js', 'export const todo2 = 2;\n');
    const created = await createBundle({
      spaces,
      bundleId: 'apps/todo2',
      version: '1.0.0',
      includes: ['apps/todo2'],
      signer,
    });
    expect([...created.manifest.files.keys()]).toEqual(['apps/todo2/index.js']);
  });

  it('refuses a bundle that would list a nested bundle’s item folder', async () => {
    const { spaces, signer } = await withTodo();
    spaces.write('.ai/tools/apps/own.py', 'print(0)\n');
    const error = await refusal(
      createBundle({ spaces, bundleId: 'apps', version: '1.0.0', signer }),
    );
    expect(error.code).toBe('BUNDLE_FOLDER_CLAIMED');
    expect(error.details).toMatchObject({ bundleId: 'apps/todo', kind: 'items' });
  });
});

describe('pullBundle() into another bundle’s folders', () => {
  const registryKey = makeKey();
  const author = makeKey();

  it('writes nothing into a local bundle’s app folder', async () => {
    const fake = await startFakeRegistry();
    serveKey(fake, registryKey);
    const c = clientSpaces();
    // The local project already has bundle apps/todo with app folder apps/todo.
    const { signer } = makeSigner();
    const put = (rel: string, text: string) => {
      mkdirSync(dirname(join(c.spaces.project, rel)), { recursive: true });
      writeFileSync(join(c.spaces.project, rel), text);
    };
    put('.ai/tools/apps/todo/run.py', 'print(1)\n');
    put('apps/todo/index.js', 'export const todo = 1;\n');
    await createBundle({
      spaces: c.spaces,
      bundleId: 'apps/todo',
      version: '1.0.0',
      includes: ['apps/todo'],
      signer,
    });
    const answer = bundleAnswer({
      registry: registryKey,
      author,
      namespace: 'mallory',
      bundleId: 'apps/helper',
      version: '1.0.0',
      files: {
        '.ai/tools/apps/helper/run.py': 'print(2)\n',
        'apps/todo/node_modules/x/index.js': 'planted\n',
      },
      includes: ['apps/todo'],
    });
    fake.routes.set('GET /v1/bundles/mallory/apps/helper', { json: answer.doc });
    serveIndex(fake, registryKey, [answer.doc]);
    for (const [sha, bytes] of answer.blobs) fake.routes.set(`GET /v1/blobs/${sha}`, { bytes });
    const before = snapshot(c.spaces.project);
    const refused = await refusal(
      pullBundle(sessionFor(c.spaces, fake.url), { ref: 'mallory/apps/helper', force: true }),
    );
    expect(refused.code).toBe('BUNDLE_FOLDER_CLAIMED');
    expect(snapshot(c.spaces.project)).toEqual(before);
    expect(fake.seen.some((r) => r.startsWith('GET /v1/blobs/'))).toBe(false);
  });
});
