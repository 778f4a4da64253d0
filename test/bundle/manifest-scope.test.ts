import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  VerifiedManifestCache,
  findBundlesFor,
  manifestScopeProblem,
  serializeManifest,
  verifiedManifest,
  verifyDependency,
  type BundleManifest,
} from '../../src/bundle/index.js';
import { sha256Hex, signText } from '../../src/integrity/index.js';
import { makeSigner } from '../helpers/keys.js';
import { refusal } from '../helpers/refusal.js';
import { makeTempSpaces } from '../helpers/temp-space.js';

const HASH = { sha256: 'a'.repeat(64), inlineSigned: false };

function manifestOf(id: string, paths: string[], includes: string[] = []): BundleManifest {
  return {
    bundle: {
      id,
      version: '1.0.0',
      createdAt: '2026-02-11T00:00:00Z',
      entrypoint: null,
      description: '',
      includes,
    },
    files: new Map(paths.map((p) => [p, HASH])),
  };
}

describe('manifestScopeProblem()', () => {
  it('accepts paths under the bundle’s item folders, plan, lockfiles and includes', () => {
    const paths = [
      '.ai/tools/apps/a/run.py',
      '.ai/directives/apps/a/build.md',
      '.ai/knowledge/apps/a/notes.md',
      '.ai/plans/a/plan.md',
      '.ai/lockfiles/apps/a/run.lock.json',
      'web/index.html',
      'web/node_modules/dep/index.js',
    ];
    expect(manifestScopeProblem(manifestOf('apps/a', paths, ['web']), 'apps/a')).toBe(undefined);
  });

  it('refuses another bundle’s files, other project files and manifests', () => {
    for (const stray of [
      '.ai/tools/apps/b/x.py',
      '.ai/tools/apps/ab/x.py',
      '.ai/tools/rye/core/other.py',
      'webapp/index.js',
      '.ai/bundles/apps/a/manifest.yaml',
      // An include is a folder: the path itself is never listed (behaviour change, issue 11).
      'web',
    ]) {
      const why = manifestScopeProblem(manifestOf('apps/a', [stray], ['web']), 'apps/a');
      expect(why, stray).toBe(`it lists ${stray}, outside the bundle's folders`);
    }
  });

  it('refuses a manifest declaring another bundle, or an include inside .ai/', () => {
    expect(manifestScopeProblem(manifestOf('apps/b', []), 'apps/a')).toBe(
      'it declares bundle apps/b, not apps/a',
    );
    expect(manifestScopeProblem(manifestOf('apps/a', [], ['.ai/tools']), 'apps/a')).toMatch(
      /^it declares a bad folder \(.*inside \.ai\//,
    );
  });
});

describe('a signed manifest listing another bundle’s file, at run time', () => {
  const STRAY = '.ai/tools/apps/b/view.jsx';
  const VIEW = 'export const View = () => <main />;\n';

  /** A manifest of `id`, signed by a trusted key, listing STRAY with its true hash. */
  function setup(id: string) {
    const t = makeTempSpaces();
    const { signer, trust } = makeSigner('alice');
    const stray = t.write(STRAY, VIEW);
    const body = serializeManifest({
      ...manifestOf(id, []),
      files: new Map([[STRAY, { sha256: sha256Hex(VIEW), inlineSigned: false }]]),
    });
    const text = signText(body, { itemType: 'tool', extension: '.yaml', signer }).text;
    const manifest = t.write(`.ai/bundles/${id}/manifest.yaml`, text);
    return { t, trust, stray, manifest };
  }

  it('is refused by verifiedManifest() with BUNDLE_MANIFEST_INVALID, and not cached', async () => {
    const { trust, manifest } = setup('apps/a');
    const cache = new VerifiedManifestCache();
    const error = await refusal(verifiedManifest(manifest, trust, cache));
    expect(error.code).toBe('BUNDLE_MANIFEST_INVALID');
    expect(error.message).toContain(`it lists ${STRAY}, outside the bundle's folders`);
    expect(cache.size).toBe(0);
  });

  it('covers nothing in findBundlesFor(): it is reported as refused', async () => {
    const { t, trust, stray, manifest } = setup('apps/a');
    const lookup = await findBundlesFor(t, stray, { trust });
    expect(lookup.covering).toEqual([]);
    expect(lookup.refused).toMatchObject([
      { bundleId: 'apps/a', space: 'project', path: manifest, code: 'BUNDLE_MANIFEST_INVALID' },
    ]);
  });

  it('is not even read by findBundlesFor(…, {skipUnrelated}): it could never cover that file', async () => {
    const { t, trust, stray } = setup('apps/a');
    const cache = new VerifiedManifestCache();
    const lookup = await findBundlesFor(t, stray, { trust, cache, skipUnrelated: true });
    expect(lookup).toEqual({ covering: [], refused: [] });
    expect(cache.verifications).toBe(0);
  });

  it('does not authenticate the file for verifyDependency()', async () => {
    const { t, trust, stray } = setup('apps/a');
    const error = await refusal(verifyDependency(stray, { spaces: t, trust }));
    expect(error.code).toBe('BUNDLE_FILE_UNAUTHENTICATED');
    expect(error.details['refusedManifests']).toMatchObject([
      { bundleId: 'apps/a', code: 'BUNDLE_MANIFEST_INVALID' },
    ]);
  });

  it('still authenticates the file when the manifest is its own bundle’s', async () => {
    const { t, trust, stray } = setup('apps/b');
    const result = await verifyDependency(stray, { spaces: t, trust });
    expect(result).toMatchObject({ via: 'manifest', bundleId: 'apps/b' });
  });
});

describe('findBundlesFor(…, {skipUnrelated}) finds what findBundlesFor() finds', () => {
  it('for files in and out of a bundle’s item folders, in an app folder and at the root', async () => {
    const t = makeTempSpaces();
    const { signer, trust } = makeSigner('alice');
    const files: Record<string, string> = {
      '.ai/tools/apps/a/run.py': 'print(1)\n',
      '.ai/knowledge/apps/a/notes.md': 'notes\n',
      '.ai/plans/a/plan.md': 'plan\n',
      'web/src/app.jsx': 'x\n',
      'web/unlisted.js': 'y\n',
    };
    for (const [path, text] of Object.entries(files)) t.write(path, text);
    const listed = (id: string, paths: string[], includes: string[]) =>
      serializeManifest({
        ...manifestOf(id, [], includes),
        files: new Map(
          paths.map((p) => [p, { sha256: sha256Hex(files[p] ?? ''), inlineSigned: false }]),
        ),
      });
    const sign = (body: string) =>
      signText(body, { itemType: 'tool', extension: '.yaml', signer }).text;
    t.write(
      '.ai/bundles/apps/a/manifest.yaml',
      sign(listed('apps/a', Object.keys(files).slice(0, 4), ['web'])),
    );
    t.write('.ai/bundles/apps/b/manifest.yaml', sign(listed('apps/b', [], [])));
    t.write('.ai/bundles/apps/c/manifest.yaml', 'not signed\n');
    const other = t.write('.ai/tools/other/x.py', 'print(2)\n');
    const cache = new VerifiedManifestCache();
    for (const path of [
      ...Object.keys(files).map((p) => join(t.project, p)),
      other,
      join(t.project, 'README'),
    ]) {
      const all = await findBundlesFor(t, path, { trust, cache });
      const some = await findBundlesFor(t, path, { trust, cache, skipUnrelated: true });
      expect(some.covering, path).toEqual(all.covering);
    }
    const coveredBy = async (path: string) =>
      (await findBundlesFor(t, path, { trust, skipUnrelated: true })).covering.map(
        (c) => c.verified.bundleId,
      );
    expect(await coveredBy(join(t.project, '.ai/tools/apps/a/run.py'))).toEqual(['apps/a']);
    expect(await coveredBy(join(t.project, 'web/unlisted.js'))).toEqual(['apps/a']);
    expect(await coveredBy(other)).toEqual([]);
    // Outside .ai/, every manifest is read: the unsigned one is reported.
    const outside = await findBundlesFor(t, join(t.project, 'web/unlisted.js'), {
      trust,
      skipUnrelated: true,
    });
    expect(outside.refused.map((r) => r.bundleId)).toEqual(['apps/c']);
    const inside = await findBundlesFor(t, other, { trust, skipUnrelated: true });
    expect(inside.refused).toEqual([]);
  });
});
