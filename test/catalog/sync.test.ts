import { spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  FULL_CHECK_EVERY_NS,
  FULL_CHECK_FILES,
  RACY_WINDOW_NS,
  searchIndexPath,
  searchItems,
  type SearchResult,
} from '../../src/catalog/index.js';
import { openCatalogDb, type CatalogDb } from '../../src/catalog/index-db.js';
import { syncIndex } from '../../src/catalog/sync.js';
import { editFile, makeCatalogProject, type CatalogProject } from '../helpers/catalog.js';

/** "Now" far from every timestamp the test writes: nothing is racy, only the stats decide. */
const later = (): bigint => BigInt(Date.now() + 60_000) * 1_000_000n;

const handleOf = (p: CatalogProject): CatalogDb => openCatalogDb(searchIndexPath(p.spaces, p.env));

/** Search checking folders and served rows only: no full check hides what the walk would miss. */
const served = (p: CatalogProject, query: string): Promise<SearchResult[]> =>
  searchItems({ ...p.scope, query, visible: () => true, recheck: 'served' });

const brief = (results: readonly SearchResult[]): string[][] =>
  results.map((r) => [r.item_id, r.space, r.verdict]);

/**
 * Index every file and folder as if long after they were written: no row is
 * racy, so only the check of served rows can notice an edit that moves no folder.
 */
async function primed(p: CatalogProject): Promise<void> {
  await syncIndex(handleOf(p), p.spaces, 'all', later());
}

/** A same-size in-place edit with the mtime put back: no folder moves, only the file's ctime. */
function editInPlace(path: string, from: string, to: string): void {
  const before = statSync(path);
  editFile(path, from, to);
  utimesSync(path, before.atime, before.mtime);
}

describe('syncIndex(): folders decide what is listed', () => {
  it('lists no folder and stats no file when no folder changed', async () => {
    const p = await makeCatalogProject();
    p.knowledge('notes/guide', { body: 'kiwi' });
    const handle = handleOf(p);
    const first = await syncIndex(handle, p.spaces, 'served', later());
    expect(first).toMatchObject({ full: true, indexed: first.files });
    expect(first.files).toBeGreaterThan(10);
    expect(await syncIndex(handle, p.spaces, 'served', later())).toEqual({
      files: 0,
      indexed: 0,
      rehashed: 0,
      removed: 0,
      dirs: 0,
      full: false,
    });
  });

  it('sees a file added to, removed from or renamed in a folder, listing that folder only', async () => {
    const p = await makeCatalogProject();
    const guide = p.knowledge('notes/guide', { body: 'kiwi' });
    const handle = handleOf(p);
    await syncIndex(handle, p.spaces, 'served', later());
    p.knowledge('notes/extra', { body: 'mango' });
    expect(await syncIndex(handle, p.spaces, 'served', later())).toMatchObject({
      dirs: 1,
      files: 2,
      indexed: 1,
      removed: 0,
    });
    renameSync(guide, join(dirname(guide), 'renamed.md'));
    expect(await syncIndex(handle, p.spaces, 'served', later())).toMatchObject({
      dirs: 1,
      indexed: 1,
      removed: 1,
    });
    rmSync(join(dirname(guide), 'renamed.md'));
    expect(await syncIndex(handle, p.spaces, 'served', later())).toMatchObject({
      dirs: 1,
      indexed: 0,
      removed: 1,
    });
  });

  it("walks a new folder, drops a removed or renamed folder's files, and never follows a link", async () => {
    const p = await makeCatalogProject();
    p.knowledge('notes/guide', { body: 'kiwi' });
    const handle = handleOf(p);
    await syncIndex(handle, p.spaces, 'served', later());
    p.knowledge('deep/er/one', { body: 'papaya' });
    p.knowledge('deep/er/two', { body: 'papaya' });
    expect(await syncIndex(handle, p.spaces, 'served', later())).toMatchObject({ indexed: 2 });
    const root = join(p.project, '.ai', 'knowledge');
    renameSync(join(root, 'deep'), join(root, 'moved'));
    expect(await syncIndex(handle, p.spaces, 'served', later())).toMatchObject({
      indexed: 2,
      removed: 2,
    });
    expect((await served(p, 'papaya')).map((r) => r.item_id).sort()).toEqual([
      'moved/er/one',
      'moved/er/two',
    ]);
    // The folder becomes a link to one outside the space: nothing behind it is an item.
    const outside = join(p.project, 'outside');
    renameSync(join(root, 'moved'), outside);
    symlinkSync(outside, join(root, 'moved'));
    expect(await syncIndex(handle, p.spaces, 'served', later())).toMatchObject({ removed: 2 });
    expect(await served(p, 'papaya')).toEqual([]);
    rmSync(join(root, 'notes'), { recursive: true });
    expect(await syncIndex(handle, p.spaces, 'served', later())).toMatchObject({ removed: 1 });
  });

  it('lists a racy folder again until its timestamps are older than the racy window', async () => {
    const p = await makeCatalogProject();
    const guide = p.knowledge('notes/guide', { body: 'kiwi' });
    const folder = statSync(dirname(guide), { bigint: true });
    const handle = handleOf(p);
    const soon = folder.ctimeNs + 1_000_000n;
    await syncIndex(handle, p.spaces, 'served', soon);
    // Nothing moved, but the folder was listed inside its own timestamp's window.
    expect((await syncIndex(handle, p.spaces, 'served', soon)).dirs).toBeGreaterThan(0);
    const after = folder.ctimeNs + RACY_WINDOW_NS * 10n;
    expect((await syncIndex(handle, p.spaces, 'served', after)).dirs).toBeGreaterThan(0);
    expect((await syncIndex(handle, p.spaces, 'served', after)).dirs).toBe(0);
  });
});

describe('syncIndex(): when every file is checked', () => {
  it('checks every file of a small index on every search', async () => {
    const p = await makeCatalogProject();
    p.knowledge('notes/guide', { body: 'kiwi' });
    const handle = handleOf(p);
    const now = later();
    await syncIndex(handle, p.spaces, 'auto', now);
    expect(await syncIndex(handle, p.spaces, 'auto', now + 1n)).toMatchObject({ full: true });
    expect(await syncIndex(handle, p.spaces, 'served', now + 2n)).toMatchObject({ full: false });
  });

  it('checks every file of a large index once its last full check is 30 s old, or the clock went back', async () => {
    const p = await makeCatalogProject();
    const folder = join(p.project, '.ai', 'knowledge', 'bulk');
    mkdirSync(folder, { recursive: true });
    for (let i = 0; i <= FULL_CHECK_FILES; i += 1)
      writeFileSync(join(folder, `n${i}.md`), `note ${i}\n`);
    const handle = handleOf(p);
    const now = later();
    expect(await syncIndex(handle, p.spaces, 'auto', now)).toMatchObject({ full: true });
    const second = 1_000_000_000n;
    expect(await syncIndex(handle, p.spaces, 'auto', now + 29n * second)).toMatchObject({
      full: false,
      files: 0,
    });
    expect(await syncIndex(handle, p.spaces, 'auto', now + FULL_CHECK_EVERY_NS)).toMatchObject({
      full: true,
    });
    expect(
      await syncIndex(handle, p.spaces, 'auto', now + FULL_CHECK_EVERY_NS + second),
    ).toMatchObject({
      full: false,
    });
    expect(await syncIndex(handle, p.spaces, 'auto', now - 3600n * second)).toMatchObject({
      full: true,
    });
    expect(await syncIndex(handle, p.spaces, 'all', now)).toMatchObject({ full: true });
  });
});

describe('searchItems(): every served row is checked against its file', () => {
  it("never serves an edited item's old text or verdict, though no folder changed", async () => {
    const p = await makeCatalogProject();
    const path = p.knowledge('notes/guide', { body: 'kiwi aaaa' });
    await primed(p);
    expect(brief(await served(p, 'kiwi'))).toEqual([['notes/guide', 'project', 'ok']]);
    editInPlace(path, 'aaaa', 'bbbb');
    const [hit] = await served(p, 'kiwi');
    expect(hit).toMatchObject({ item_id: 'notes/guide', verdict: 'tampered' });
    expect(hit?.code).toBe('INTEGRITY_HASH_MISMATCH');
    expect(hit?.snippet).toContain('bbbb');
    // The row that matched the old word is re-read before it could be served.
    expect(await served(p, 'aaaa')).toEqual([]);
  });

  it('serves an added item, the space that now wins, and forgets a removed one', async () => {
    const p = await makeCatalogProject();
    p.knowledge('notes/guide', { body: 'pelican user copy', base: p.user });
    expect(brief(await served(p, 'pelican'))).toEqual([['notes/guide', 'user', 'ok']]);
    const project = p.knowledge('notes/guide', { body: 'pelican project copy' });
    p.knowledge('brand/new/entry', { body: 'pelican newcomer' });
    expect(brief(await served(p, 'pelican')).sort()).toEqual([
      ['brand/new/entry', 'project', 'ok'],
      ['notes/guide', 'project', 'ok'],
    ]);
    rmSync(project);
    rmSync(join(p.project, '.ai', 'knowledge', 'brand'), { recursive: true });
    expect(brief(await served(p, 'pelican'))).toEqual([['notes/guide', 'user', 'ok']]);
  });

  it('does not serve a file swapped for a symbolic link after it was indexed', async () => {
    const p = await makeCatalogProject();
    const path = p.knowledge('notes/guide', { body: 'walrus' });
    const secret = join(p.project, 'secret.md');
    writeFileSync(secret, readFileSync(path));
    await primed(p);
    expect(await served(p, 'walrus')).toHaveLength(1);
    rmSync(path);
    symlinkSync(secret, path);
    expect(await served(p, 'walrus')).toEqual([]);
  });

  it('concurrent searches of one process build and refresh the same index without a conflict', async () => {
    const p = await makeCatalogProject();
    for (let i = 0; i < 5; i += 1) p.knowledge(`notes/n${i}`, { body: `ibis note ${i}` });
    const runs = await Promise.all([1, 2, 3, 4].map(() => served(p, 'ibis')));
    for (const results of runs) expect(results).toHaveLength(5);
    p.knowledge('notes/n5', { body: 'ibis late' });
    const again = await Promise.all([1, 2, 3].map(() => served(p, 'ibis')));
    for (const results of again) expect(results).toHaveLength(6);
  });

  it('refuses an unknown recheck mode before any work', async () => {
    const p = await makeCatalogProject();
    const error = await searchItems({
      ...p.scope,
      query: 'kiwi',
      visible: () => true,
      recheck: 'never' as 'all',
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'USAGE_INVALID_ARGUMENT' });
    expect(existsSync(join(p.indexDir))).toBe(false);
  });

  it("finds an in-place edit's new words once a full check runs (the documented residual)", async () => {
    const p = await makeCatalogProject();
    const path = p.knowledge('notes/guide', { body: 'kiwi aaaa' });
    // Past the racy window: a folder listed within it is listed again, and would catch the edit.
    await new Promise((resolve) => setTimeout(resolve, Number(RACY_WINDOW_NS / 1_000_000n) + 100));
    await served(p, 'kiwi');
    editInPlace(path, 'aaaa', 'yyyy');
    // Not served, in no changed folder: not seen by a `served` search…
    expect(await served(p, 'yyyy')).toEqual([]);
    // …seen by a full check (the default does one on a small index, or after 30 s).
    const found = await searchItems({ ...p.scope, query: 'yyyy', visible: () => true });
    expect(brief(found)).toEqual([['notes/guide', 'project', 'tampered']]);
  });

  it('keeps both promises across processes: each sees what the other changed and wrote', async () => {
    const p = await makeCatalogProject();
    const path = p.knowledge('notes/guide', { body: 'kiwi aaaa' });
    await primed(p);
    expect(await served(p, 'kiwi')).toHaveLength(1);
    editInPlace(path, 'aaaa', 'bbbb');
    // Another process, folders and served rows only: it must re-read the edited row.
    expect(await servedInChild(p, 'kiwi')).toEqual([['notes/guide', 'project', 'tampered']]);
    expect(brief(await served(p, 'kiwi'))).toEqual([['notes/guide', 'project', 'tampered']]);
    // Folders this process recorded, changed afterwards, are listed again by the other one.
    p.knowledge('notes/extra', { body: 'kiwi extra' });
    expect(await servedInChild(p, 'kiwi')).toHaveLength(2);
    rmSync(path);
    expect(brief(await served(p, 'kiwi'))).toEqual([['notes/extra', 'project', 'ok']]);
    expect(await servedInChild(p, 'kiwi')).toEqual([['notes/extra', 'project', 'ok']]);
  });
});

const CATALOG = fileURLToPath(new URL('../../dist/src/catalog/index.js', import.meta.url));

/** `searchItems(…, recheck: 'served')` in a child Node process (the built library). */
function servedInChild(p: CatalogProject, query: string): Promise<string[][]> {
  const script = `
    const { searchItems, closeCatalogDbs } = await import(${JSON.stringify(CATALOG)});
    const scope = JSON.parse(process.env.SCOPE);
    const results = await searchItems({ ...scope, query: ${JSON.stringify(query)}, visible: () => true, recheck: 'served' });
    closeCatalogDbs();
    console.log(JSON.stringify(results.map((r) => [r.item_id, r.space, r.verdict])));`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      env: { ...p.env, SCOPE: JSON.stringify({ project: p.project, env: p.env }) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`child exited ${code}: ${err}`));
      else resolve(JSON.parse(out) as string[][]);
    });
  });
}
