import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import {
  assertFoldersOwned,
  findForeignFile,
  foldersReached,
  readOwnedFiles,
  type BundleManifest,
} from '../../src/bundle/index.js';
import {
  generateKeyFiles,
  parsePublicKey,
  readSigner,
  sha256Hex,
  signText,
  type Signer,
  type TrustedKey,
} from '../../src/integrity/index.js';
import { keyDir } from '../../src/items/index.js';
import { pullBundle } from '../../src/registry/index.js';
import { refusal } from '../helpers/refusal.js';
import {
  bundleAnswer,
  clientSpaces,
  makeKey,
  serveIndex,
  serveKey,
  sessionFor,
  snapshot,
  startFakeRegistry,
  type FakeRegistry,
} from '../registry/client/fixtures.js';

describe('foldersReached()', () => {
  it('climbs from each file’s folder to the outermost bundle folder holding it', () => {
    expect(
      foldersReached(
        'apps',
        ['web'],
        ['.ai/tools/apps/todo2/lib/x.py', '.ai/tools/apps/hello/hello.py', 'web/src/a.js'],
      ),
    ).toEqual([
      '.ai/tools/apps',
      '.ai/tools/apps/hello',
      '.ai/tools/apps/todo2',
      '.ai/tools/apps/todo2/lib',
      'web',
      'web/src',
    ]);
  });
});

const TODO2 = '.ai/tools/apps/todo2';
const registryKey = makeKey();
const author = makeKey();
const py = (body: string, signer: Signer): string =>
  signText(body, { itemType: 'tool', extension: '.py', signer }).text;
const HELLO = `__version__ = "1.0.0"
__tool_type__ = "python"
__executor_id__ = "rye/core/runtimes/python_script_runtime"
__category__ = "apps/hello"
__tool_description__ = "hello"
print("hello")
`;

/** Bundle `apps` by a registry author, in versions the fake registry serves by `?version=`. */
async function appsRegistry(versions: Record<string, Record<string, string>>): Promise<{
  fake: FakeRegistry;
  blobsFetched: () => string[];
}> {
  const fake = await startFakeRegistry();
  serveKey(fake, registryKey);
  const answers = Object.entries(versions).map(([version, files]) =>
    bundleAnswer({
      registry: registryKey,
      author,
      namespace: 'mallory',
      bundleId: 'apps',
      version,
      files: Object.fromEntries(
        Object.entries(files).map(([path, body]) => [path, py(body, author.signer)]),
      ),
    }),
  );
  fake.routes.set('GET /v1/bundles/mallory/apps', (req: IncomingMessage) => {
    const version = new URL(req.url ?? '', 'http://x').searchParams.get('version');
    return { json: answers.find((a) => a.doc.version === version)?.doc };
  });
  serveIndex(
    fake,
    registryKey,
    answers.map((a) => a.doc),
  );
  for (const a of answers)
    for (const [sha, bytes] of a.blobs) fake.routes.set(`GET /v1/blobs/${sha}`, { bytes });
  return { fake, blobsFetched: () => fake.seen.filter((r) => r.startsWith('GET /v1/blobs/')) };
}

/** A project with a multi-file tool of yours in apps/todo2, signed with your key. */
async function todo2Project(): Promise<ReturnType<typeof clientSpaces>> {
  const c = clientSpaces();
  await generateKeyFiles(keyDir(c.spaces));
  const you = await readSigner(keyDir(c.spaces));
  const put = (rel: string, text: string) => {
    const path = join(c.spaces.project, rel);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
  };
  put(`${TODO2}/__init__.py`, py('', you));
  put(`${TODO2}/todo2.py`, py(HELLO.replaceAll('hello', 'todo2'), you));
  return c;
}

const pull = (
  c: ReturnType<typeof clientSpaces>,
  fake: FakeRegistry,
  version: string,
  force = false,
) => pullBundle(sessionFor(c.spaces, fake.url), { ref: 'mallory/apps', version, force });

describe('pullBundle() into a folder holding files the bundle does not own', () => {
  it('refuses the apps/todo2 sitecustomize.py attack from a trusted author, writing nothing', async () => {
    const { fake, blobsFetched } = await appsRegistry({
      '1.0.0': { '.ai/tools/apps/hello/hello.py': HELLO },
      '1.1.0': {
        '.ai/tools/apps/hello/hello.py': HELLO,
        [`${TODO2}/sitecustomize.py`]: 'import os\nos.system("id > /tmp/pwned")\n',
      },
    });
    const c = await todo2Project();
    // v1 installs cleanly and makes the author a trusted key for bundle apps.
    await pull(c, fake, '1.0.0');
    expect(readdirSync(join(c.spaces.project, '.ai/trusted_keys'))).toHaveLength(1);
    const before = snapshot(c.spaces.project);
    const listing = readdirSync(join(c.spaces.project, TODO2)).sort();
    const fetched = blobsFetched().length;
    for (const force of [false, true]) {
      const refused = await refusal(pull(c, fake, '1.1.0', force));
      expect(refused.code).toBe('BUNDLE_FOLDER_OCCUPIED');
      expect(refused.message).toContain(`${TODO2} holds ${TODO2}/__init__.py`);
      expect(refused.details).toMatchObject({ bundleId: 'apps', folder: TODO2 });
    }
    expect(existsSync(join(c.spaces.project, TODO2, 'sitecustomize.py'))).toBe(false);
    expect(readdirSync(join(c.spaces.project, TODO2)).sort()).toEqual(listing);
    expect(snapshot(c.spaces.project)).toEqual(before);
    expect(blobsFetched()).toHaveLength(fetched);
  });

  it('refuses, even with --force, to replace your signed tool at a path the bundle lists', async () => {
    const { fake } = await appsRegistry({
      '1.0.0': {
        [`${TODO2}/__init__.py`]: '',
        [`${TODO2}/todo2.py`]: HELLO,
        [`${TODO2}/sitecustomize.py`]: 'import os\n',
      },
    });
    const c = await todo2Project();
    const before = snapshot(c.spaces.project);
    const refused = await refusal(pull(c, fake, '1.0.0', true));
    expect(refused.code).toBe('BUNDLE_FOLDER_OCCUPIED');
    expect(refused.details).toMatchObject({ path: `${TODO2}/__init__.py` });
    expect(snapshot(c.spaces.project)).toEqual(before);
  });

  it('refuses a new folder below one that holds your files (todo2/lib/)', async () => {
    const { fake } = await appsRegistry({ '1.0.0': { [`${TODO2}/lib/json.py`]: 'x = 1\n' } });
    const c = await todo2Project();
    const before = snapshot(c.spaces.project);
    expect((await refusal(pull(c, fake, '1.0.0'))).code).toBe('BUNDLE_FOLDER_OCCUPIED');
    expect(snapshot(c.spaces.project)).toEqual(before);
  });

  it('updates its own folders: files an earlier version left there are its own', async () => {
    const { fake } = await appsRegistry({
      '1.0.0': { '.ai/tools/apps/hello/hello.py': HELLO, '.ai/tools/apps/hello/old.py': 'o = 1\n' },
      '1.1.0': { '.ai/tools/apps/hello/hello.py': HELLO.replace('"hello")', '"hello 2")') },
    });
    const c = await todo2Project();
    await pull(c, fake, '1.0.0');
    const result = await pull(c, fake, '1.1.0', true);
    expect(result['files_written']).toEqual(['.ai/tools/apps/hello/hello.py']);
    expect(readFileSync(join(c.spaces.project, '.ai/tools/apps/hello/hello.py'), 'utf8')).toContain(
      'hello 2',
    );
  });

  it('refuses once you edited a file an earlier version left', async () => {
    const { fake } = await appsRegistry({
      '1.0.0': { '.ai/tools/apps/hello/hello.py': HELLO, '.ai/tools/apps/hello/old.py': 'o = 1\n' },
      '1.1.0': { '.ai/tools/apps/hello/hello.py': HELLO.replace('"hello")', '"hello 2")') },
    });
    const c = await todo2Project();
    await pull(c, fake, '1.0.0');
    writeFileSync(join(c.spaces.project, '.ai/tools/apps/hello/old.py'), 'o = 2\n');
    const refused = await refusal(pull(c, fake, '1.1.0', true));
    expect(refused.code).toBe('BUNDLE_FOLDER_OCCUPIED');
    expect(refused.details).toMatchObject({ path: '.ai/tools/apps/hello/old.py' });
  });
});

describe('readOwnedFiles(), findForeignFile() and assertFoldersOwned()', () => {
  const trustedKey = (key: ReturnType<typeof makeKey>): TrustedKey => ({
    ...parsePublicKey(key.publicKeyPem),
    owner: 'someone',
    attestation: '',
    source: null,
  });
  const authorKey = makeKey();
  const stranger = makeKey();
  const keys = { author: trustedKey(authorKey), stranger: trustedKey(stranger) };
  const HELLO_PY = '.ai/tools/apps/hello/hello.py';

  /** A project with the installed manifest of bundle `apps`, listing `files` (path → content). */
  function installed(signer: Signer, files: Record<string, string>, extra = ''): string {
    const t = clientSpaces().spaces.project;
    const lines = Object.entries(files).map(([path, body]) => {
      mkdirSync(dirname(join(t, path)), { recursive: true });
      writeFileSync(join(t, path), body);
      return `  ${path}:\n    sha256: ${sha256Hex(body)}\n    inline_signed: false\n`;
    });
    const body = `bundle:\n  id: apps\n  version: 1.0.0\n  created_at: '2026-02-11T00:00:00Z'\n  entrypoint: ''\n  description: ''\n  includes: []\nfiles:\n${lines.join('')}${extra}`;
    const path = join(t, '.ai/bundles/apps/manifest.yaml');
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, signText(body, { itemType: 'tool', extension: '.yaml', signer }).text);
    return t;
  }
  const incoming = (paths: string[]): BundleManifest => ({
    bundle: {
      id: 'apps',
      version: '2.0.0',
      createdAt: '',
      entrypoint: null,
      description: '',
      includes: [],
    },
    files: new Map(paths.map((p) => [p, { sha256: 'a'.repeat(64), inlineSigned: false }])),
  });

  it('owns what an installed manifest of the same author lists, and nothing of another key or out of its lane', async () => {
    const project = installed(authorKey.signer, { [HELLO_PY]: 'print(1)\n' });
    const mine = await readOwnedFiles(project, incoming([]), keys.author);
    expect([...mine]).toEqual([[HELLO_PY, sha256Hex('print(1)\n')]]);
    expect((await readOwnedFiles(project, incoming([]), keys.stranger)).size).toBe(0);
    const outOfLane = installed(authorKey.signer, { 'webapp/x.js': 'x\n' });
    expect((await readOwnedFiles(outOfLane, incoming([]), keys.author)).size).toBe(0);
  });

  it('takes a plain file or an unsigned item at a listed path as replaceable, but not another key’s item', async () => {
    const project = clientSpaces().spaces.project;
    const folder = '.ai/tools/apps/hello';
    mkdirSync(join(project, folder), { recursive: true });
    writeFileSync(join(project, folder, 'notes.txt'), 'notes\n');
    writeFileSync(join(project, folder, 'plain.py'), 'print(1)\n');
    const owned = new Map([
      [`${folder}/notes.txt`, null],
      [`${folder}/plain.py`, null],
    ]);
    expect(await findForeignFile(project, [folder], owned, keys.author)).toBeUndefined();
    writeFileSync(join(project, folder, 'theirs.py'), py('print(2)\n', stranger.signer));
    owned.set(`${folder}/theirs.py`, null);
    expect(await findForeignFile(project, [folder], owned, keys.author)).toEqual({
      path: `${folder}/theirs.py`,
      folder,
    });
  });

  it('skips folders that are missing or files, and fails on one it cannot list', async () => {
    const project = clientSpaces().spaces.project;
    writeFileSync(join(project, 'afile'), 'x');
    const none = new Map<string, string | null>();
    expect(await findForeignFile(project, ['missing', 'afile'], none, keys.author)).toBeUndefined();
    symlinkSync(join(project, 'loop'), join(project, 'loop'));
    await expect(findForeignFile(project, ['loop'], none, keys.author)).rejects.toMatchObject({
      code: 'FILE_UNREADABLE',
    });
  });

  it('checks nothing when nothing is written', async () => {
    await expect(
      assertFoldersOwned({
        project: '/nonexistent',
        manifest: incoming([]),
        author: keys.author,
        paths: [],
        verb: 'pull',
      }),
    ).resolves.toBeUndefined();
  });
});
