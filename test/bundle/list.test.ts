import { describe, expect, it } from 'vitest';
import { listBundles, listManifestPaths } from '../../src/bundle/index.js';
import { makeTempSpaces } from '../helpers/temp-space.js';

describe('listManifestPaths()', () => {
  it('lists manifests project → user → system, then by id, without reading them', async () => {
    const t = makeTempSpaces();
    const garbage = 'not: [a manifest\n';
    const b = t.write('.ai/bundles/apps/b/manifest.yaml', garbage);
    const a = t.write('.ai/bundles/apps/a/manifest.yaml', garbage);
    const bad = t.write('.ai/bundles/bad id/manifest.yaml', garbage);
    const user = t.write('.ai/bundles/apps/a/manifest.yaml', garbage, t.user);
    t.write('.ai/bundles/manifest.yaml', garbage);

    const paths = await listManifestPaths(t);
    expect(paths).toEqual([
      { space: 'project', bundleId: 'apps/a', path: a },
      { space: 'project', bundleId: 'apps/b', path: b },
      { space: 'project', bundleId: 'bad id', path: bad, idProblem: expect.any(String) },
      { space: 'user', bundleId: 'apps/a', path: user },
    ]);
    // listBundles() is the same listing, each manifest then read and parsed.
    const listed = await listBundles(t);
    expect(listed.map(({ space, bundleId, path }) => ({ space, bundleId, path }))).toEqual(
      paths.map(({ space, bundleId, path }) => ({ space, bundleId, path })),
    );
    expect(listed.map((l) => l.error?.code)).toEqual(Array(4).fill('BUNDLE_MANIFEST_INVALID'));
    expect(listed[2]?.error?.message).toContain('its folder is not a bundle id');
  });

  it('returns nothing when no space has a bundles folder', async () => {
    const t = makeTempSpaces();
    expect(await listManifestPaths(t)).toEqual([]);
  });
});
