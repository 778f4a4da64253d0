import { createServer, type Server } from 'node:net';
import { mkdirSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  assertBundleOk,
  createBundle,
  verifyBundle,
  type BundleReport,
} from '../../src/bundle/index.js';
import { signText, type Signer, type TrustSet } from '../../src/integrity/index.js';
import { MAX_ITEM_BYTES } from '../../src/platform/index.js';
import { KNOWLEDGE } from '../helpers/items.js';
import { makeSigner } from '../helpers/keys.js';
import { refusal } from '../helpers/refusal.js';
import { makeTempSpaces, type TempSpaces } from '../helpers/temp-space.js';

const ID = 'apps/notes';
const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((r) => server.close(r));
});

/** A Unix socket at `path`: a file that open(2) refuses with ENXIO. */
async function socketAt(path: string): Promise<void> {
  const server = createServer();
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(path, resolve));
}

interface Bundled {
  t: TempSpaces;
  signer: Signer;
  trust: TrustSet;
  verify: () => Promise<BundleReport>;
}

/** A bundle of two signed knowledge items and an app folder of plain files. */
async function bundled(extra: (t: TempSpaces) => void = () => undefined): Promise<Bundled> {
  const t = makeTempSpaces();
  const { signer, trust } = makeSigner();
  for (const name of ['a', 'b']) {
    t.write(
      `.ai/knowledge/${ID}/${name}.md`,
      signText(KNOWLEDGE(name), { itemType: 'knowledge', extension: '.md', signer }).text,
    );
  }
  t.write('notes/index.html', '<h1>notes</h1>\n');
  t.write('notes/lib/app.js', 'app();\n');
  extra(t);
  await createBundle({ spaces: t, bundleId: ID, version: '1.0.0', includes: ['notes'], signer });
  return { t, signer, trust, verify: () => verifyBundle({ spaces: t, bundleId: ID, trust }) };
}

describe('verifyBundle() on files that changed kind', () => {
  it('reports a folder on the way replaced by a file as missing, and a file replaced by a folder as changed', async () => {
    const b = await bundled();
    rmSync(join(b.t.project, 'notes/lib'), { recursive: true });
    b.t.write('notes/lib', 'now a file\n');
    rmSync(join(b.t.project, 'notes/index.html'));
    mkdirSync(join(b.t.project, 'notes/index.html'));
    const signed = join(b.t.project, `.ai/knowledge/${ID}/a.md`);
    rmSync(signed);
    mkdirSync(signed);
    const report = await b.verify();
    expect(report.files.missing).toEqual(['notes/lib/app.js']);
    expect(report.files.tampered.map((f) => [f.path, f.actual])).toEqual([
      [`.ai/knowledge/${ID}/a.md`, null],
      ['notes/index.html', null],
    ]);
    expect(report.files.unlisted).toEqual(['notes/lib']);
  });

  it('reports a signed item replaced by a link, or by other bytes, as changed, without checking its signature', async () => {
    const b = await bundled();
    const a = join(b.t.project, `.ai/knowledge/${ID}/a.md`);
    rmSync(a);
    symlinkSync(join(b.t.project, `.ai/knowledge/${ID}/b.md`), a);
    b.t.write(`.ai/knowledge/${ID}/b.md`, 'edited, and unsigned\n');
    const report = await b.verify();
    expect(report.files.tampered.map((f) => f.path)).toEqual([
      `.ai/knowledge/${ID}/a.md`,
      `.ai/knowledge/${ID}/b.md`,
    ]);
    expect(report.files.tampered[1]?.actual).toMatch(/^[0-9a-f]{64}$/);
    expect(report.files.badSignature).toEqual([]);
  });

  it('stops with FILE_UNREADABLE on a listed file it cannot open (a socket), signed or not', async () => {
    const plain = await bundled();
    const html = join(plain.t.project, 'notes/index.html');
    rmSync(html);
    await socketAt(html);
    const refused = await refusal(plain.verify());
    expect([refused.code, refused.details]).toEqual([
      'FILE_UNREADABLE',
      { path: html, errno: 'ENXIO' },
    ]);
    const signed = await bundled();
    const item = join(signed.t.project, `.ai/knowledge/${ID}/b.md`);
    rmSync(item);
    await socketAt(item);
    expect(await refusal(signed.verify())).toMatchObject({
      code: 'FILE_UNREADABLE',
      details: { path: item, errno: 'ENXIO' },
    });
  });

  it('streams a plain file over the item cap when another file changed, and reports both right', async () => {
    const b = await bundled((t) => {
      t.write('notes/data.bin', '');
      truncateSync(join(t.project, 'notes/data.bin'), MAX_ITEM_BYTES + 1);
    });
    b.t.write('notes/lib/app.js', 'changed();\n');
    const progress: number[] = [];
    const report = await verifyBundle({
      spaces: b.t,
      bundleId: ID,
      trust: b.trust,
      onProgress: (done) => progress.push(done),
    });
    expect(report.files.tampered.map((f) => f.path)).toEqual(['notes/lib/app.js']);
    expect(report.files.ok).toContain('notes/data.bin');
    expect(progress.at(-1)).toBe(5);
    writeFileSync(join(b.t.project, 'notes/data.bin'), 'small now');
    expect((await b.verify()).files.tampered.map((f) => f.path)).toEqual([
      'notes/data.bin',
      'notes/lib/app.js',
    ]);
  });
});

describe('assertBundleOk()', () => {
  const base: BundleReport = {
    ok: false,
    bundleId: ID,
    version: '1.0.0',
    space: 'project',
    manifestPath: '/p/m.yaml',
    manifest: { ok: true, verdict: 'ok', code: null, message: '', fingerprint: null, signer: null },
    files: { ok: [], missing: [], tampered: [], unlisted: [], badSignature: [] },
    counts: { listed: 1, ok: 0, missing: 0, tampered: 0, unlisted: 0, badSignature: 0 },
  };
  const thrown = (report: BundleReport): string => {
    try {
      assertBundleOk(report);
    } catch (error) {
      return (error as Error).message;
    }
    return 'no error';
  };

  it('names the first failing file of the first non-empty list: changed, missing, bad signature, unlisted', () => {
    const bad = { path: 'c', code: 'INTEGRITY_BAD_SIGNATURE' as const, message: 'x' };
    expect(thrown({ ...base, files: { ...base.files, missing: ['m'], unlisted: ['u'] } })).toBe(
      `Cannot verify bundle ${ID}: files 1 missing, 1 not listed (first: m)`,
    );
    expect(
      thrown({ ...base, files: { ...base.files, badSignature: [bad], unlisted: ['u'] } }),
    ).toBe(
      `Cannot verify bundle ${ID}: files 1 with a bad inline signature, 1 not listed (first: c)`,
    );
    expect(thrown({ ...base, files: { ...base.files, unlisted: ['u'] } })).toBe(
      `Cannot verify bundle ${ID}: files 1 not listed (first: u)`,
    );
  });

  it('throws the code of a manifest that did not verify', () => {
    const manifest = {
      ...base.manifest,
      ok: false,
      code: 'INTEGRITY_UNSIGNED' as const,
      message: 'no line',
    };
    expect(() => assertBundleOk({ ...base, manifest })).toThrow(
      expect.objectContaining({
        code: 'INTEGRITY_UNSIGNED',
        message: `Cannot verify bundle ${ID}: its manifest did not verify (no line)`,
      }),
    );
  });
});
