import { existsSync, mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { VerifiedManifestCache } from '../../src/bundle/manifest-cache.js';
import { serializeManifest } from '../../src/bundle/manifest-serialize.js';
import type { ManifestEntry } from '../../src/bundle/types.js';
import { verifyDependency } from '../../src/bundle/verified-loader.js';
import { sha256Hex, signText, type Signer, type TrustSet } from '../../src/integrity/index.js';
import { makeSigner } from '../helpers/keys.js';
import { refusal } from '../helpers/refusal.js';
import { makeTempSpaces, type TempSpaces } from '../helpers/temp-space.js';

const BUNDLE = 'apps/demo';
const TOOL_DIR = '.ai/tools/apps/demo';
const RUNNER = `${TOOL_DIR}/runner.py`;
const APP_JSX = `${TOOL_DIR}/ui/App.jsx`;
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]);

function signedTool(body: string, signer: Signer, extension = '.py'): string {
  return signText(body, { itemType: 'tool', extension, signer }).text;
}

/** Sign and write `<project>/.ai/bundles/<id>/manifest.yaml` listing `files` (path → content). */
function writeManifest(
  t: TempSpaces,
  signer: Signer,
  files: Record<string, string | Uint8Array>,
  options: { id?: string; folder?: string; includes?: string[] } = {},
): string {
  const id = options.id ?? BUNDLE;
  const entries = new Map<string, ManifestEntry>(
    Object.entries(files).map(([path, content]) => [
      path,
      { sha256: sha256Hex(content), inlineSigned: false },
    ]),
  );
  const body = serializeManifest({
    bundle: {
      id,
      version: '1.0.0',
      createdAt: '2026-02-11T00:00:00Z',
      entrypoint: null,
      description: 'demo bundle',
      includes: options.includes ?? ['webapp'],
    },
    files: entries,
  });
  const text = signText(body, { itemType: 'tool', extension: '.yaml', signer }).text;
  return t.write(`.ai/bundles/${options.folder ?? id}/manifest.yaml`, text);
}

/** A project with an inline-signed runner, a JSX view in the tool folder and an app folder. */
function setup(): {
  t: TempSpaces;
  signer: Signer;
  trust: TrustSet;
  runner: string;
  files: Record<string, string | Uint8Array>;
} {
  const t = makeTempSpaces();
  const { signer, trust } = makeSigner('alice');
  const runner = signedTool('print("run")\n', signer);
  const files: Record<string, string | Uint8Array> = {
    [RUNNER]: runner,
    [APP_JSX]: 'export const App = () => <main />;\n',
    'webapp/index.js': 'console.log("app");\n',
    'webapp/logo.png': PNG,
  };
  for (const [path, content] of Object.entries(files)) t.write(path, content);
  writeManifest(t, signer, files);
  return { t, signer, trust, runner, files };
}

describe('verifyDependency()', () => {
  it('accepts an inline-signed tool file by its signature', async () => {
    const { t, trust, runner } = setup();
    const result = await verifyDependency(join(t.project, RUNNER), { spaces: t, trust });
    expect(result).toMatchObject({ via: 'inline', sha256: sha256Hex(runner), signer: 'alice' });
    expect(result.via === 'inline' && result.contentHash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('accepts a .jsx in the tool folder through the manifest entry', async () => {
    const { t, trust, files } = setup();
    const result = await verifyDependency(join(t.project, APP_JSX), { spaces: t, trust });
    expect(result).toMatchObject({
      via: 'manifest',
      bundleId: BUNDLE,
      sha256: sha256Hex(files[APP_JSX] ?? ''),
    });
  });

  it('accepts a listed binary file in a declared app folder', async () => {
    const { t, trust } = setup();
    const result = await verifyDependency(join(t.project, 'webapp/logo.png'), { spaces: t, trust });
    expect(result).toMatchObject({ via: 'manifest', bundleId: BUNDLE, sha256: sha256Hex(PNG) });
  });

  it('accepts an unsigned .py in the tool folder when the manifest lists it', async () => {
    const { t, signer, trust, files } = setup();
    const helper = `${TOOL_DIR}/helper.py`;
    t.write(helper, 'X = 1\n');
    writeManifest(t, signer, { ...files, [helper]: 'X = 1\n' });
    const result = await verifyDependency(join(t.project, helper), { spaces: t, trust });
    expect(result.via).toBe('manifest');
  });

  it('refuses a listed .jsx edited after bundling, with both hashes', async () => {
    const { t, trust, files } = setup();
    const path = t.write(APP_JSX, 'export const App = () => <evil />;\n');
    const error = await refusal(verifyDependency(path, { spaces: t, trust }));
    expect(error.code).toBe('INTEGRITY_HASH_MISMATCH');
    expect(error.message).toContain('App.jsx');
    expect(error.details).toMatchObject({
      expected: sha256Hex(files[APP_JSX] ?? ''),
      actual: sha256Hex('export const App = () => <evil />;\n'),
    });
  });

  it('refuses an unlisted file in a declared app folder', async () => {
    const { t, trust } = setup();
    const path = t.write('webapp/extra.css', 'body {}\n');
    const error = await refusal(verifyDependency(path, { spaces: t, trust }));
    expect(error.code).toBe('BUNDLE_FILE_UNAUTHENTICATED');
    expect(error.message).toContain(`not listed in bundle ${BUNDLE}'s manifest`);
  });

  it('refuses an unsigned, unlisted file in the tool folder', async () => {
    const { t, trust } = setup();
    const path = t.write(`${TOOL_DIR}/ui/extra.css`, 'body {}\n');
    const error = await refusal(verifyDependency(path, { spaces: t, trust }));
    expect(error.code).toBe('BUNDLE_FILE_UNAUTHENTICATED');
  });

  it('refuses files outside every allowed root', async () => {
    const { t, trust } = setup();
    const paths = [t.write('outside.txt', 'x\n', t.root), t.write('notes.txt', 'x\n')];
    if (existsSync('/etc/hostname')) paths.push('/etc/hostname');
    for (const path of paths) {
      const error = await refusal(verifyDependency(path, { spaces: t, trust }));
      expect(error.code).toBe('BUNDLE_FILE_UNAUTHENTICATED');
      expect(error.message).toContain('outside allowed roots');
    }
  });

  it('refuses a symlink, even to a signed file inside the root', async () => {
    const { t, trust } = setup();
    const link = join(t.project, TOOL_DIR, 'link.py');
    symlinkSync(join(t.project, RUNNER), link);
    const error = await refusal(verifyDependency(link, { spaces: t, trust }));
    expect(error.code).toBe('INTEGRITY_SYMLINK_ESCAPE');
    expect(error.message).toContain('symlinked dependency not allowed');
  });

  it('refuses a folder and a missing file as unreadable', async () => {
    const { t, trust } = setup();
    mkdirSync(join(t.project, TOOL_DIR, 'dir.py'));
    for (const path of [join(t.project, TOOL_DIR, 'dir.py'), join(t.project, 'missing.js')]) {
      expect((await refusal(verifyDependency(path, { spaces: t, trust }))).code).toBe(
        'FILE_UNREADABLE',
      );
    }
  });

  // The manifest's own refusal is INTEGRITY_UNTRUSTED_KEY, but the file's is
  // BUNDLE_FILE_UNAUTHENTICATED: an unverified manifest is never parsed, so it
  // cannot say whether it lists the file. Its code is kept as evidence.
  it('refuses the files of a manifest signed by an untrusted key', async () => {
    const { t, files } = setup();
    const other = makeSigner('mallory');
    writeManifest(t, other.signer, files);
    const { trust } = makeSigner('bob');
    for (const path of [APP_JSX, 'webapp/index.js']) {
      const error = await refusal(verifyDependency(join(t.project, path), { spaces: t, trust }));
      expect(error.code).toBe('BUNDLE_FILE_UNAUTHENTICATED');
      expect(error.details['refusedManifests']).toMatchObject([
        { bundleId: BUNDLE, code: 'INTEGRITY_UNTRUSTED_KEY' },
      ]);
    }
  });

  it('ignores a manifest lying under another bundle id than it declares', async () => {
    const { t, signer, trust, files } = setup();
    writeManifest(t, signer, files, { id: 'apps/other', folder: BUNDLE });
    const error = await refusal(verifyDependency(join(t.project, APP_JSX), { spaces: t, trust }));
    expect(error.code).toBe('BUNDLE_FILE_UNAUTHENTICATED');
    expect(error.details['refusedManifests']).toMatchObject([{ code: 'BUNDLE_MANIFEST_INVALID' }]);
  });

  it('verifies a manifest once, again after it changes or its key loses trust', async () => {
    const { t, signer, trust, files } = setup();
    const cache = new VerifiedManifestCache();
    const options = { spaces: t, trust, cache };
    await verifyDependency(join(t.project, APP_JSX), options);
    await verifyDependency(join(t.project, 'webapp/index.js'), options);
    expect(cache.verifications).toBe(1);
    expect(cache.size).toBe(1);

    const added = t.write('webapp/new.js', 'new\n');
    writeManifest(t, signer, { ...files, 'webapp/new.js': 'new\n' });
    expect((await verifyDependency(added, options)).via).toBe('manifest');
    expect(cache.verifications).toBe(2);

    const error = await refusal(
      verifyDependency(added, { ...options, trust: makeSigner('bob').trust }),
    );
    expect(error.code).toBe('BUNDLE_FILE_UNAUTHENTICATED');
    expect(cache.verifications).toBe(3);
  });

  it('does not let a manifest entry rescue a broken inline signature', async () => {
    const { t, signer, trust, files, runner } = setup();
    const tampered = runner.replace('print("run")', 'print("pwned")');
    t.write(RUNNER, tampered);
    writeManifest(t, signer, { ...files, [RUNNER]: tampered });
    const error = await refusal(verifyDependency(join(t.project, RUNNER), { spaces: t, trust }));
    expect(error.code).toBe('INTEGRITY_HASH_MISMATCH');
    expect(error.details['verdict']).toBe('hash_mismatch');
  });

  it('does not let a manifest entry rescue an inline signature by an untrusted key', async () => {
    const { t, signer, trust, files } = setup();
    const foreign = signedTool('print("other")\n', makeSigner('mallory').signer);
    t.write(RUNNER, foreign);
    writeManifest(t, signer, { ...files, [RUNNER]: foreign });
    const error = await refusal(verifyDependency(join(t.project, RUNNER), { spaces: t, trust }));
    expect(error.code).toBe('INTEGRITY_UNTRUSTED_KEY');
  });
});

describe('verifyDependency() of files that cannot carry a signature', () => {
  it('takes a binary or extension-less file in the tool folder through the manifest, by its id-shaped path', async () => {
    const { t, signer, trust, files } = setup();
    const binary = `${TOOL_DIR}/model.py`;
    const bare = `${TOOL_DIR}/Makefile`;
    t.write(binary, PNG);
    t.write(bare, 'all:\n');
    writeManifest(t, signer, { ...files, [binary]: PNG, [bare]: 'all:\n' });
    for (const path of [binary, bare]) {
      expect(await verifyDependency(join(t.project, path), { spaces: t, trust })).toMatchObject({
        via: 'manifest',
        bundleId: BUNDLE,
      });
    }
    t.write(`${TOOL_DIR}/Other`, 'x\n');
    expect(
      (await refusal(verifyDependency(join(t.project, `${TOOL_DIR}/Other`), { spaces: t, trust })))
        .code,
    ).toBe('BUNDLE_FILE_UNAUTHENTICATED');
  });
});
