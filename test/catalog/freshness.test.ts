import { readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  RACY_WINDOW_NS,
  enumerateItemFiles,
  searchIndexPath,
  searchItems,
  type SearchResult,
} from '../../src/catalog/index.js';
import { openCatalogDb } from '../../src/catalog/index-db.js';
import { refreshIndex } from '../../src/catalog/refresh.js';
import { editFile, makeCatalogProject, type CatalogProject } from '../helpers/catalog.js';
import { rye } from '../helpers/cli.js';

const find = (p: CatalogProject, query: string): Promise<SearchResult[]> =>
  searchItems({ ...p.scope, query, visible: () => true });

const brief = (results: readonly SearchResult[]): string[][] =>
  results.map((r) => [r.item_id, r.space, r.verdict]);

describe('the search index stays fresh', () => {
  it('serves an edited body on the next search in the same process', async () => {
    const p = await makeCatalogProject();
    const path = p.knowledge('notes/guide', { body: 'the oldword is here' });
    expect(brief(await find(p, 'oldword'))).toEqual([['notes/guide', 'project', 'ok']]);
    editFile(path, 'oldword', 'replacementword');
    expect(await find(p, 'oldword')).toEqual([]);
    // Edited after signing: found by its new text, and shown as tampered.
    expect(brief(await find(p, 'replacementword'))).toEqual([
      ['notes/guide', 'project', 'tampered'],
    ]);
  });

  it('sees files added and removed, and which space wins after each', async () => {
    const p = await makeCatalogProject();
    p.knowledge('notes/guide', { body: 'pelican user copy', base: p.user });
    expect(brief(await find(p, 'pelican'))).toEqual([['notes/guide', 'user', 'ok']]);
    const project = p.knowledge('notes/guide', { body: 'pelican project copy' });
    expect(brief(await find(p, 'pelican'))).toEqual([['notes/guide', 'project', 'ok']]);
    rmSync(project);
    expect(brief(await find(p, 'pelican'))).toEqual([['notes/guide', 'user', 'ok']]);
  });

  it('serves edits made by another process, and edits seen by another process', async () => {
    const p = await makeCatalogProject();
    const path = p.knowledge('notes/guide', { body: 'version alphaword' });
    expect(await find(p, 'alphaword')).toHaveLength(1);
    editFile(path, 'alphaword', 'betaword');
    const cli = await rye(['search', 'betaword', '--json', '--project', p.project], {
      env: p.env,
    });
    expect(cli.code, cli.stderr).toBe(0);
    expect(cli.json<{ results: SearchResult[] }>().results.map((r) => r.item_id)).toEqual([
      'notes/guide',
    ]);
    // The other process rewrote the index: this process's view must follow, then see a new edit.
    editFile(path, 'betaword', 'gammaword');
    expect(await find(p, 'betaword')).toEqual([]);
    expect(brief(await find(p, 'gammaword'))).toEqual([['notes/guide', 'project', 'tampered']]);
    const again = await rye(['search', 'gammaword', '--json', '--project', p.project], {
      env: p.env,
    });
    expect(again.json<{ results: SearchResult[] }>().results).toHaveLength(1);
  });

  it('catches a same-size edit whose mtime was put back (touch -d): the ctime moved', async () => {
    const p = await makeCatalogProject();
    const path = p.knowledge('notes/guide', { body: 'aaaa' });
    const when = new Date('2024-01-02T03:04:05Z');
    utimesSync(path, when, when);
    const handle = openCatalogDb(searchIndexPath(p.spaces, p.env));
    // "Now" far from every timestamp: nothing is racy, only the stat decides.
    const later = BigInt(Date.now() + 60_000) * 1_000_000n;
    await refreshIndex(handle, enumerateItemFiles(p.spaces), later);
    const before = statSync(path, { bigint: true });
    // Past the timestamp tick of the first write, so the ctime surely moves.
    await new Promise((resolve) => setTimeout(resolve, 30));
    writeFileSync(path, readFileSync(path, 'utf8').replace('aaaa', 'bbbb'));
    utimesSync(path, when, when);
    const after = statSync(path, { bigint: true });
    expect([after.size, after.mtimeNs]).toEqual([before.size, before.mtimeNs]);
    const stats = await refreshIndex(handle, enumerateItemFiles(p.spaces), later);
    expect(stats).toMatchObject({ indexed: 1, removed: 0 });
  });

  it('re-hashes a racy row even when its stat looks unchanged, then trusts the stat', async () => {
    const p = await makeCatalogProject();
    const path = p.knowledge('notes/guide', { body: 'aaaa' });
    const handle = openCatalogDb(searchIndexPath(p.spaces, p.env));
    const files = enumerateItemFiles(p.spaces);
    const guide = files.find((f) => f.path === path);
    if (guide === undefined) throw new Error('guide not enumerated');
    // Indexed within the racy window of its own timestamps.
    await refreshIndex(handle, files, guide.ctimeNs + 1_000_000n);
    // An edit inside the same timestamp tick: same size, mtime, ctime and inode.
    writeFileSync(path, readFileSync(path, 'utf8').replace('aaaa', 'bbbb'));
    const later = guide.ctimeNs + RACY_WINDOW_NS * 10n;
    expect(await refreshIndex(handle, files, later)).toMatchObject({ indexed: 1 });
    // Out of the window now: a stat-identical edit is the documented residual.
    writeFileSync(path, readFileSync(path, 'utf8').replace('bbbb', 'cccc'));
    expect(await refreshIndex(handle, files, later)).toMatchObject({ indexed: 0, rehashed: 0 });
  });
});
