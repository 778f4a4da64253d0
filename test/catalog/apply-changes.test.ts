import { appendFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openSqlite } from '../../src/platform/index.js';
import { applyChanges } from '../../src/catalog/apply-changes.js';
import { enumerateItemFiles, searchIndexPath } from '../../src/catalog/index.js';
import { openCatalogDb } from '../../src/catalog/index-db.js';
import { currentDirs } from '../../src/catalog/mirror.js';
import { planChanges } from '../../src/catalog/refresh.js';
import { syncIndex } from '../../src/catalog/sync.js';
import { makeCatalogProject } from '../helpers/catalog.js';

const later = (): bigint => BigInt(Date.now() + 60_000) * 1_000_000n;

describe('applyChanges(): another connection wrote meanwhile', () => {
  it('writes the file rows, records no folder as listed, and marks the folders touched for a new listing', async () => {
    const p = await makeCatalogProject();
    const path = p.knowledge('notes/guide', { body: 'kiwi' });
    const handle = openCatalogDb(searchIndexPath(p.spaces, p.env));
    await syncIndex(handle, p.spaces, 'all', later());
    const folder = dirname(path);
    const racy = (): number[] =>
      (
        handle.db.prepare('SELECT racy FROM dirs WHERE path = ?').all(folder) as { racy: number }[]
      ).map((r) => r.racy);
    expect(racy()).toEqual([0]);
    appendFileSync(path, 'appended mango\n');
    const dirs = currentDirs(handle);
    const stale = dirs.get(folder);
    if (stale === undefined) throw new Error('folder not recorded');
    const file = enumerateItemFiles(p.spaces).find((f) => f.path === path);
    if (file === undefined) throw new Error('file not enumerated');
    const { changes } = await planChanges(() => undefined, [file], later());
    // Another process commits between this process's reads and its write.
    const other = openSqlite(handle.path);
    other.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('other', '1')").run();
    other.close();
    applyChanges(handle, {
      changes,
      removed: [],
      listed: [{ ...stale, mtimeNs: stale.mtimeNs + 1n }],
      goneDirs: [],
      sweptNs: later(),
    });
    // Its view may be stale: nothing it listed is trusted, the folder is listed again next time.
    expect(racy()).toEqual([1]);
    expect(handle.dirs).toBeNull();
    const body = handle.db
      .prepare('SELECT body FROM fts WHERE rowid = (SELECT id FROM files WHERE path = ?)')
      .get(path) as { body: string };
    expect(body.body).toContain('mango');
    // The row already existed: replaced, not duplicated.
    expect(
      (
        handle.db.prepare('SELECT count(*) AS n FROM files WHERE path = ?').get(path) as {
          n: number;
        }
      ).n,
    ).toBe(1);
    expect(await syncIndex(handle, p.spaces, 'served', later())).toMatchObject({ dirs: 1 });
  });
});
