import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { searchIndexPath, searchItems, type SearchResult } from '../../src/catalog/index.js';
import { makeCatalogProject, type CatalogProject } from '../helpers/catalog.js';
import { refusal } from '../helpers/refusal.js';

const all = (): boolean => true;

async function search(
  p: CatalogProject,
  query: string,
  extra: Partial<Parameters<typeof searchItems>[0]> = {},
): Promise<SearchResult[]> {
  return searchItems({ ...p.scope, query, visible: all, ...extra });
}

const ids = (results: readonly SearchResult[]): string[] => results.map((r) => r.item_id);

describe('searchItems(): ranking and results', () => {
  it('ranks a word in the id or title above the same word in a body', async () => {
    const p = await makeCatalogProject();
    p.knowledge('notes/body-only', { body: 'A zebra crossed the road.' });
    p.knowledge('notes/zebra', { title: 'Zebra handbook' });
    const results = await search(p, 'zebra');
    expect(ids(results)).toEqual(['notes/zebra', 'notes/body-only']);
    const [first, second] = results;
    expect(first?.score).toBeGreaterThan(second?.score ?? Infinity);
    expect(second).toMatchObject({
      item_type: 'knowledge',
      space: 'project',
      path: p.itemPath('knowledge', 'notes/body-only', '.md'),
      version: '1.0.0',
      title: 'body-only title',
      category: 'notes',
      verdict: 'ok',
      code: null,
      shadowed: false,
    });
    expect(second?.snippet).toContain('**zebra**');
  });

  it('gives each result its own snippet and never shows the signature line', async () => {
    const p = await makeCatalogProject();
    p.knowledge('a/one', { body: 'quokka one alpha' });
    p.knowledge('a/two', { body: 'quokka two beta' });
    const results = await search(p, 'quokka');
    expect(results.map((r) => r.snippet).sort()).toEqual([
      '**quokka** one alpha',
      '**quokka** two beta',
    ]);
    const everything = await search(p, 'signed', { limit: 100 });
    for (const r of everything) expect(r.snippet).not.toContain('rye:signed');
  });

  it('stems words (porter) and matches the start of a stem with a trailing *', async () => {
    const p = await makeCatalogProject();
    p.knowledge('a/cursor', { body: 'Paginate with cursors.' });
    expect(ids(await search(p, 'cursor'))).toEqual(['a/cursor']);
    expect(ids(await search(p, 'paginating'))).toEqual(['a/cursor']);
    expect(ids(await search(p, 'curs*'))).toEqual(['a/cursor']);
  });

  it('lists by type and id for a blank query, within the limit', async () => {
    const p = await makeCatalogProject();
    p.knowledge('b/two');
    p.knowledge('a/one');
    const listed = await search(p, '', { item_type: 'knowledge', limit: 3 });
    expect(ids(listed)).toEqual(['a/one', 'b/two', 'rye/core/registry']);
    expect(listed[0]).toMatchObject({ score: 0, snippet: '' });
  });

  it('filters by type and space; without a space each id shows the file it resolves to', async () => {
    const p = await makeCatalogProject();
    p.knowledge('shared/guide', { body: 'walrus in project' });
    p.knowledge('shared/guide', { body: 'walrus in user', base: p.user });
    const winners = await search(p, 'walrus');
    expect(winners.map((r) => [r.item_id, r.space, r.shadowed])).toEqual([
      ['shared/guide', 'project', false],
    ]);
    const user = await search(p, 'walrus', { space: 'user' });
    expect(user.map((r) => [r.space, r.shadowed])).toEqual([['user', true]]);
    expect(await search(p, 'walrus', { item_type: 'tool' })).toEqual([]);
    expect(ids(await search(p, 'runtime', { item_type: 'tool', space: 'system' }))).toContain(
      'rye/core/runtimes/node_runtime',
    );
  });

  it('refuses a bad type, space or limit before any work', async () => {
    const p = await makeCatalogProject();
    expect((await refusal(search(p, 'x', { item_type: 'tools' }))).code).toBe('ITEM_TYPE_INVALID');
    expect((await refusal(search(p, 'x', { space: 'global' }))).code).toBe('SPACE_INVALID');
    for (const limit of [0, 101, 1.5, Number.NaN]) {
      expect((await refusal(search(p, 'x', { limit }))).code).toBe('USAGE_INVALID_ARGUMENT');
    }
    expect(existsSync(p.indexDir)).toBe(false);
  });
});

describe('searchItems(): the authority filter', () => {
  it('never returns, counts or quotes an item visible() rejects', async () => {
    const p = await makeCatalogProject();
    // Hidden items match better (the word in their titles) and sort first by id.
    for (let i = 0; i < 5; i += 1)
      p.knowledge(`hidden/h${i}`, { title: 'alpha alpha', body: 'classified marker' });
    for (let i = 0; i < 4; i += 1) p.knowledge(`public/p${i}`, { body: 'alpha in body' });
    const asked: string[] = [];
    const visible = (_type: string, id: string): boolean => {
      asked.push(id);
      return id.startsWith('public/');
    };
    const results = await search(p, 'alpha', { limit: 3, visible });
    expect(ids(results)).toEqual(['public/p0', 'public/p1', 'public/p2']);
    expect(JSON.stringify(results)).not.toMatch(/classified|hidden/);
    expect(asked.some((id) => id.startsWith('hidden/'))).toBe(true);
    const listed = await search(p, '', { limit: 100, visible });
    expect(ids(listed).every((id) => id.startsWith('public/'))).toBe(true);
  });

  it('fails closed without a visible() function', async () => {
    const p = await makeCatalogProject();
    const error = await refusal(
      searchItems({ ...p.scope, query: 'x', visible: undefined as never }),
    );
    expect(error.code).toBe('USAGE_INVALID_ARGUMENT');
  });
});

describe('searchItems(): hostile queries', () => {
  it('refuses a 1 MB query before anything is read or written', async () => {
    const p = await makeCatalogProject();
    const error = await refusal(search(p, 'a'.repeat(1024 * 1024)));
    expect(error.code).toBe('SEARCH_QUERY_TOO_LONG');
    expect(existsSync(p.indexDir)).toBe(false);
  });

  it('searches FTS5 syntax as text: no operator, column filter or error gets through', async () => {
    const p = await makeCatalogProject();
    p.knowledge('z/zebra', { body: 'zebra stripes' });
    p.knowledge('z/quokka', { body: 'quokka smiles' });
    // As FTS5 syntax each of these would match one of the two; as words none matches.
    for (const q of [
      'zebra OR quokka',
      'NEAR(zebra quokka)',
      'zebra NOT quokka',
      'description:zebra',
      'body:stripes',
      '{title body}:stripes',
      'item_id:zebra',
    ]) {
      expect(ids(await search(p, q)), q).toEqual([]);
    }
    // Punctuation is a word break, so these find the word itself and nothing else.
    for (const q of ['(zebra', 'zebra)', '"zebra', '^zebra', '-zebra', 'zebra\u0000', 'zeb*']) {
      expect(ids(await search(p, q)), JSON.stringify(q)).toEqual(['z/zebra']);
    }
    for (const q of ['"', '*', ':', '(', ')', '-', '\u0000', 'NEAR']) {
      expect(await search(p, q), JSON.stringify(q)).toEqual([]);
    }
  });
});

describe('searchItems(): the index file', () => {
  it('rebuilds an index file that is not a database', async () => {
    const p = await makeCatalogProject();
    p.knowledge('notes/guide', { body: 'heron' });
    const path = searchIndexPath(p.spaces, p.env);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, 'not a database, but long enough to have a header: '.repeat(40));
    expect(ids(await search(p, 'heron'))).toEqual(['notes/guide']);
  });

  it('fails with SEARCH_INDEX_FAILED when the cache cannot hold it', async () => {
    const p = await makeCatalogProject();
    const blocker = join(p.root, 'not-a-folder');
    writeFileSync(blocker, 'x');
    const error = await refusal(
      searchItems({
        project: p.project,
        env: { ...p.env, RYE_CACHE_DIR: blocker },
        query: 'x',
        visible: all,
      }),
    );
    expect(error.code).toBe('SEARCH_INDEX_FAILED');
  });
});

describe('searchItems(): what counts as an item', () => {
  it('skips symbolic links (to files and to folders), so nothing outside a space is read', async () => {
    const p = await makeCatalogProject();
    const outside = join(p.root, 'outside');
    mkdirSync(outside, { recursive: true });
    writeFileSync(join(outside, 'secret.md'), 'exfiltrate narwhal\n');
    const knowledge = join(p.project, '.ai', 'knowledge');
    mkdirSync(knowledge, { recursive: true });
    symlinkSync(join(outside, 'secret.md'), join(knowledge, 'linked.md'));
    symlinkSync(outside, join(knowledge, 'linked-dir'));
    p.knowledge('real/entry', { body: 'narwhal inside' });
    const results = await search(p, 'narwhal');
    expect(ids(results)).toEqual(['real/entry']);
    expect(JSON.stringify(results)).not.toContain('exfiltrate');
  });

  it('ignores project files under the reserved rye/ ids: the system item is the one found', async () => {
    const p = await makeCatalogProject();
    p.knowledge('rye/core/runtimes', { body: 'impostor runtimes' });
    expect(await search(p, 'impostor')).toEqual([]);
    const found = await search(p, 'runtimes', { item_type: 'knowledge' });
    expect(found.find((r) => r.item_id === 'rye/core/runtimes')?.space).toBe('system');
  });
});
