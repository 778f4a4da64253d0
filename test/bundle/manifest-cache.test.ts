import { sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  VerifiedManifestCache,
  findBundlesFor,
  serializeManifest,
  verifiedManifest,
  verifyBundle,
  type BundleManifest,
} from '../../src/bundle/index.js';
import { bundleIdOfPath } from '../../src/bundle/manifest-cache.js';
import { sha256Hex, signText, type Signer } from '../../src/integrity/index.js';
import { makeSigner } from '../helpers/keys.js';
import { refusal } from '../helpers/refusal.js';
import { makeTempSpaces, type TempSpaces } from '../helpers/temp-space.js';

const ID = 'apps/notes';

function manifestText(signer: Signer, files: Record<string, [string, boolean]>, id = ID): string {
  const manifest: BundleManifest = {
    bundle: {
      id,
      version: '1.0.0',
      createdAt: '2026-02-11T00:00:00Z',
      entrypoint: null,
      description: '',
      includes: ['notes'],
    },
    files: new Map(
      Object.entries(files).map(([path, [body, inlineSigned]]) => [
        path,
        { sha256: sha256Hex(body), inlineSigned },
      ]),
    ),
  };
  return signText(serializeManifest(manifest), { itemType: 'tool', extension: '.yaml', signer })
    .text;
}

function project(): {
  t: TempSpaces;
  signer: Signer;
  trust: ReturnType<typeof makeSigner>['trust'];
} {
  const t = makeTempSpaces();
  const { signer, trust } = makeSigner();
  t.write('notes/index.html', '<h1>notes</h1>\n');
  return { t, signer, trust };
}

describe('bundleIdOfPath()', () => {
  it('is the id of <base>/.ai/bundles/<id>/manifest.yaml, else null', () => {
    const p = (...parts: string[]): string => parts.join(sep);
    expect(bundleIdOfPath(p('', 'p', '.ai', 'bundles', 'apps', 'notes', 'manifest.yaml'))).toBe(ID);
    expect(bundleIdOfPath(p('', 'p', '.ai', 'bundles', 'manifest.yaml'))).toBeNull();
    expect(bundleIdOfPath(p('', 'p', '.ai', 'bundles', 'apps', 'other.yaml'))).toBeNull();
    expect(bundleIdOfPath(p('', 'p', 'manifest.yaml'))).toBeNull();
  });
});

describe('verifiedManifest() refuses a manifest out of its place', () => {
  it('one that does not lie at a bundle path', async () => {
    const { t, signer, trust } = project();
    const path = t.write('elsewhere/manifest.yaml', manifestText(signer, {}));
    const refused = await refusal(verifiedManifest(path, trust, new VerifiedManifestCache()));
    expect([refused.code, refused.message]).toEqual([
      'BUNDLE_MANIFEST_INVALID',
      `Cannot use bundle manifest ${path}: it declares bundle ${ID} but does not lie at <base>/.ai/bundles/${ID}/manifest.yaml`,
    ]);
  });

  it('one copied under another bundle’s folder', async () => {
    const { t, signer, trust } = project();
    const path = t.write('.ai/bundles/apps/other/manifest.yaml', manifestText(signer, {}));
    expect(await refusal(verifiedManifest(path, trust, new VerifiedManifestCache()))).toMatchObject(
      {
        code: 'BUNDLE_MANIFEST_INVALID',
        details: { path, bundleId: ID },
      },
    );
  });
});

describe('findBundlesFor() with skipUnrelated', () => {
  it('does not read a manifest whose folder is no bundle id (it can never verify)', async () => {
    const { t, signer, trust } = project();
    const file = t.write('.ai/tools/x/run.py', 'print(1)\n');
    t.write('.ai/bundles/Not An Id/manifest.yaml', manifestText(signer, {}));
    const all = await findBundlesFor(t, file, { trust });
    expect(all.refused.map((r) => [r.bundleId, r.code])).toEqual([
      ['Not An Id', 'BUNDLE_MANIFEST_INVALID'],
    ]);
    expect(await findBundlesFor(t, file, { trust, skipUnrelated: true })).toEqual({
      covering: [],
      refused: [],
    });
  });
});

describe('verifyBundle() and an inline_signed flag on a file that is no item', () => {
  it('reports the file with a bad inline signature: it cannot carry one', async () => {
    const { t, signer, trust } = project();
    t.write(
      `.ai/bundles/${ID}/manifest.yaml`,
      manifestText(signer, { 'notes/index.html': ['<h1>notes</h1>\n', true] }),
    );
    const report = await verifyBundle({ spaces: t, bundleId: ID, trust });
    expect(report.files.badSignature).toEqual([
      {
        path: 'notes/index.html',
        code: 'INTEGRITY_UNSIGNED',
        message:
          'Cannot verify notes/index.html: it is not an item file, so it cannot carry an inline signature',
      },
    ]);
  });
});
