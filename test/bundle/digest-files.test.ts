import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createBundle, verifyBundle } from '../../src/bundle/index.js';
import { digestFiles } from '../../src/bundle/digest-files.js';
import { MAX_ITEM_BYTES } from '../../src/platform/index.js';
import { makeSigner } from '../helpers/keys.js';
import { makeTempSpaces } from '../helpers/temp-space.js';

const sha = (b: Buffer | string): string => createHash('sha256').update(b).digest('hex');

/** `count` files under `dir`, each with its own content; every `gapEvery`-th is never written. */
function files(dir: string, count: number, gapEvery = 0): { paths: string[]; contents: string[] } {
  mkdirSync(dir, { recursive: true });
  const paths: string[] = [];
  const contents: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const path = join(dir, `f${i}.txt`);
    const content = `file ${i}\n`.repeat(1 + (i % 7));
    paths.push(path);
    contents.push(content);
    if (gapEvery === 0 || i % gapEvery !== 0) writeFileSync(path, content);
  }
  return { paths, contents };
}

describe('digestFiles()', () => {
  it('digests every file in input order, reporting each one that is gone', async () => {
    const spaces = makeTempSpaces();
    const { paths, contents } = files(join(spaces.project, 'many'), 3000, 97);
    const progress: number[] = [];
    const digests = await digestFiles(paths, (done: number) => progress.push(done));
    expect(digests.length).toBe(paths.length);
    for (let i = 0; i < paths.length; i += 1) {
      const outcome = digests.at(i);
      if (i % 97 === 0) {
        expect(outcome).toMatchObject({ kind: 'failed', errno: 'ENOENT' });
      } else {
        expect(outcome).toEqual({
          kind: 'digest',
          sha256: sha(contents[i] as string),
          size: Buffer.byteLength(contents[i] as string),
        });
      }
    }
    // Reported between batches, and once at the end.
    expect(progress).toEqual([...Array.from({ length: 11 }, (_, i) => (i + 1) * 256), 3000]);
  });

  it('never follows a final link, refuses what is not a regular file, and leaves a large file unread', async () => {
    const spaces = makeTempSpaces();
    const dir = join(spaces.project, 'odd');
    mkdirSync(join(dir, 'folder'), { recursive: true });
    writeFileSync(join(dir, 'target'), 'secret');
    symlinkSync(join(dir, 'target'), join(dir, 'link'));
    writeFileSync(join(dir, 'large'), '');
    truncateSync(join(dir, 'large'), MAX_ITEM_BYTES + 1);
    writeFileSync(join(dir, 'small'), 'ok');
    // A FIFO (refused without blocking): digest-files-fifo.test.ts, which starts mkfifo.
    const names = ['link', 'folder', 'large', 'small'];
    {
      const digests = await digestFiles(names.map((n) => join(dir, n)));
      expect(names.map((_, i) => digests.at(i))).toEqual([
        { kind: 'failed', errno: 'ELOOP', message: expect.any(String) },
        { kind: 'failed', errno: null, message: 'not a regular file' },
        { kind: 'large' },
        { kind: 'digest', sha256: sha('ok'), size: 2 },
      ]);
    }
  });
});

describe('digestFiles() buffers', () => {
  it('grows its read buffer for a file over 64 KiB and still digests the small ones after it', async () => {
    const dir = join(makeTempSpaces().project, 'sizes');
    mkdirSync(dir, { recursive: true });
    const big = 'x'.repeat(200 * 1024);
    writeFileSync(join(dir, 'big'), big);
    writeFileSync(join(dir, 'small'), 'ok');
    const digests = await digestFiles([join(dir, 'small'), join(dir, 'big'), join(dir, 'small')]);
    expect([0, 1, 2].map((i) => digests.at(i))).toEqual([
      { kind: 'digest', sha256: sha('ok'), size: 2 },
      { kind: 'digest', sha256: sha(big), size: big.length },
      { kind: 'digest', sha256: sha('ok'), size: 2 },
    ]);
  });
});

describe('Digests.allEqual()', () => {
  it('is true only when every file was read and every digest is the one expected', async () => {
    const spaces = makeTempSpaces();
    const { paths, contents } = files(join(spaces.project, 'all'), 40);
    const expected = contents.map((c) => sha(c));
    const digests = await digestFiles(paths);
    expect(digests.allEqual(expected)).toBe(true);
    expect(digests.bytes).toBe(contents.reduce((n, c) => n + Buffer.byteLength(c), 0));
    const changed = [...expected];
    changed[17] = sha('other');
    expect(digests.allEqual(changed)).toBe(false);
    expect(digests.allEqual(expected.slice(1))).toBe(false);
    expect(digests.allEqual(expected.map((h, i) => (i === 3 ? `${h.slice(0, 63)}g` : h)))).toBe(
      false,
    );
    expect(digests.allEqual(expected.map((h, i) => (i === 3 ? h.slice(0, 62) : h)))).toBe(false);
    expect(digests.allEqual(expected.map((h, i) => (i === 3 ? h.toUpperCase() : h)))).toBe(false);
    rmSync(paths[5] as string);
    const gone = await digestFiles(paths);
    expect(gone.allEqual(expected)).toBe(false);
    expect(gone.at(5)).toMatchObject({ kind: 'failed', errno: 'ENOENT' });
  });
});

describe('verifyBundle() of a large bundle', () => {
  it('lists each file once as ok, a file over the item cap (streamed) too', async () => {
    const spaces = makeTempSpaces();
    const { signer, trust } = makeSigner();
    const app = join(spaces.project, 'app');
    mkdirSync(join(app, 'data'), { recursive: true });
    writeFileSync(join(app, 'data', 'big.bin'), '');
    truncateSync(join(app, 'data', 'big.bin'), MAX_ITEM_BYTES + 1);
    writeFileSync(join(app, 'a.txt'), 'a');
    writeFileSync(join(app, 'z.txt'), 'z');
    await createBundle({ spaces, bundleId: 'apps/l', version: '1.0.0', includes: ['app'], signer });
    const report = await verifyBundle({ spaces, bundleId: 'apps/l', trust });
    expect(report.ok).toBe(true);
    expect(report.files.ok).toEqual(['app/a.txt', 'app/data/big.bin', 'app/z.txt']);
    expect(report.counts).toMatchObject({ listed: 3, ok: 3 });
  });

  it('reports tampered, missing, linked and unlisted files among 1,200', async () => {
    const spaces = makeTempSpaces();
    const { signer, trust } = makeSigner();
    const app = join(spaces.project, 'big');
    const { paths } = files(join(app, 'a'), 1200);
    files(join(app, 'b'), 5);
    await createBundle({
      spaces,
      bundleId: 'apps/big',
      version: '1.0.0',
      includes: ['big'],
      signer,
    });
    writeFileSync(paths[10] as string, 'changed');
    rmSync(paths[700] as string);
    writeFileSync(join(app, 'a', 'planted.txt'), 'new');
    // A listed folder swapped for a link to a copy of itself: its files are not the bundle's.
    cpSync(join(app, 'b'), join(spaces.project, 'b-copy'), { recursive: true });
    rmSync(join(app, 'b'), { recursive: true });
    symlinkSync(join(spaces.project, 'b-copy'), join(app, 'b'));

    const report = await verifyBundle({ spaces, bundleId: 'apps/big', trust });
    expect(report.ok).toBe(false);
    expect(report.files.tampered.map((t) => [t.path, t.actual])).toEqual([
      ['big/a/f10.txt', sha('changed')],
      ...[0, 1, 2, 3, 4].map((i) => [`big/b/f${i}.txt`, null]),
    ]);
    expect(report.files.missing).toEqual(['big/a/f700.txt']);
    expect(report.files.unlisted).toEqual(['big/a/planted.txt', 'big/b']);
    expect(report.counts.ok).toBe(1200 - 2);
  });
});
