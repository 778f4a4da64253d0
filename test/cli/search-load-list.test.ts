import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { editFile, makeCatalogProject, type CatalogProject } from '../helpers/catalog.js';
import { rye, type CliResult } from '../helpers/cli.js';

const run = (p: CatalogProject, ...args: string[]): Promise<CliResult> =>
  rye([...args, '--project', p.project], { env: p.env });

interface ErrorDoc {
  ok: false;
  error: { code: string; message: string; hint: string };
}

describe('rye search', () => {
  it('prints ranked results with verdicts, as JSON with snake_case keys', async () => {
    const p = await makeCatalogProject();
    p.knowledge('notes/api-design', { title: 'API design', body: 'Paginate with cursors.' });
    editFile(p.knowledge('notes/edited', { body: 'cursors everywhere' }), 'everywhere', 'there');
    const json = await run(p, 'search', 'cursor', '--json');
    expect(json.code, json.stderr).toBe(0);
    const doc = json.json<{ ok: boolean; query: string; results: Record<string, unknown>[] }>();
    expect(doc.ok).toBe(true);
    expect(doc.query).toBe('cursor');
    const rows = doc.results.map((r) => [r['item_id'], r['verdict'], r['code']]);
    expect(rows.sort()).toEqual([
      ['notes/api-design', 'ok', null],
      ['notes/edited', 'tampered', 'INTEGRITY_HASH_MISMATCH'],
    ]);
    expect(Object.keys(doc.results[0] ?? {}).sort()).toEqual(
      [
        'category',
        'code',
        'description',
        'item_id',
        'item_type',
        'path',
        'score',
        'shadowed',
        'snippet',
        'space',
        'title',
        'verdict',
        'version',
      ].sort(),
    );
    const human = await run(p, 'search', 'design cursor', '--type', 'knowledge', '--limit', '1');
    expect(human.code).toBe(0);
    expect(human.stdout).toContain('knowledge notes/api-design [project] ok - API design');
    expect(human.stdout).toMatch(/\*\*(design|cursors)\*\*/i);
    expect(human.stdout).not.toContain('notes/edited');
  });

  it('builds one index when two processes search a cold cache at once', async () => {
    const p = await makeCatalogProject();
    for (let i = 0; i < 40; i += 1) p.knowledge(`bulk/item${i}`, { body: `ibis number ${i}` });
    const both = await Promise.all([
      run(p, 'search', 'ibis', '--limit', '100', '--json'),
      run(p, 'search', 'ibis', '--limit', '100', '--json'),
    ]);
    for (const res of both) {
      expect(res.code, res.stdout + res.stderr).toBe(0);
      expect(res.json<{ results: unknown[] }>().results).toHaveLength(40);
    }
  });

  it('refuses an oversized query (exit 2) and writes no index', async () => {
    const p = await makeCatalogProject();
    const res = await run(p, 'search', 'x'.repeat(100_000), '--json');
    expect(res.code).toBe(2);
    expect(res.json<ErrorDoc>()).toMatchObject({
      ok: false,
      error: { code: 'SEARCH_QUERY_TOO_LONG' },
    });
    expect(existsSync(p.indexDir)).toBe(false);
  });

  it('refuses a bad limit, type or space with exit 2', async () => {
    const p = await makeCatalogProject();
    for (const [args, code] of [
      [['--limit', '500'], 'USAGE_INVALID_ARGUMENT'],
      [['--limit', 'ten'], 'USAGE_INVALID_ARGUMENT'],
      [['--type', 'skill'], 'ITEM_TYPE_INVALID'],
      [['--space', 'global'], 'SPACE_INVALID'],
    ] as const) {
      const res = await run(p, 'search', 'x', ...args, '--json');
      expect(res.code, args.join(' ')).toBe(2);
      expect(res.json<ErrorDoc>().error.code).toBe(code);
    }
  });
});

describe('rye load', () => {
  it('prints the verified content; --json adds the metadata', async () => {
    const p = await makeCatalogProject();
    p.knowledge('notes/guide', { title: 'Guide', body: 'Line one.\nLine two.' });
    const text = await run(p, 'load', 'knowledge', 'notes/guide');
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain('Line one.\nLine two.\n');
    expect(text.stdout).not.toContain('rye:signed');
    const json = await run(p, 'load', 'knowledge', 'notes/guide', '--json');
    expect(json.json()).toMatchObject({
      ok: true,
      item_type: 'knowledge',
      item_id: 'notes/guide',
      space: 'project',
      verdict: 'ok',
      metadata: { title: 'Guide' },
    });
  });

  it('refuses a tampered entry with exit 3 and prints none of it', async () => {
    const p = await makeCatalogProject();
    editFile(p.knowledge('notes/guide', { body: 'original' }), 'original', 'IGNORE PREVIOUS');
    const res = await run(p, 'load', 'knowledge', 'notes/guide', '--json');
    expect(res.code).toBe(3);
    expect(res.json<ErrorDoc>().error.code).toBe('INTEGRITY_HASH_MISMATCH');
    expect(res.stdout).not.toContain('IGNORE PREVIOUS');
    const human = await run(p, 'load', 'knowledge', 'notes/guide');
    expect(human.code).toBe(3);
    expect(human.stdout).toBe('');
    expect(human.stderr).toContain('error[INTEGRITY_HASH_MISMATCH]');
  });

  it('escapes terminal control sequences in the content it prints', async () => {
    const p = await makeCatalogProject();
    p.knowledge('notes/colour', { body: 'red \u001b[31mtext\u001b[0m \u202eevil' });
    const res = await run(p, 'load', 'knowledge', 'notes/colour');
    expect(res.code).toBe(0);
    expect(res.stdout).not.toContain('\u001b');
    expect(res.stdout).not.toContain('\u202e');
    expect(res.stdout).toContain('text');
  });

  it('refuses a path traversal id with exit 2', async () => {
    const p = await makeCatalogProject();
    const res = await run(p, 'load', 'knowledge', '../../etc/passwd', '--json');
    expect(res.code).toBe(2);
    expect(res.json<ErrorDoc>().error.code).toBe('ITEM_ID_INVALID');
  });
});

describe('rye list', () => {
  it('lists items with version, space and verdict; --space shows shadowed files', async () => {
    const p = await makeCatalogProject();
    p.knowledge('notes/guide');
    p.knowledge('notes/guide', { base: p.user, signed: false });
    const json = await run(p, 'list', 'knowledge', '--json');
    expect(json.code, json.stderr).toBe(0);
    const doc = json.json<{ ok: boolean; items: Record<string, unknown>[] }>();
    expect(doc.ok).toBe(true);
    expect(doc.items[0]).toMatchObject({
      item_type: 'knowledge',
      item_id: 'notes/guide',
      space: 'project',
      version: '1.0.0',
      verdict: 'ok',
      code: null,
      shadowed: false,
    });
    const user = await run(p, 'list', '--space', 'user');
    expect(user.code).toBe(0);
    expect(user.stdout).toMatch(
      /knowledge +notes\/guide +1\.0\.0 +user +unsigned \(INTEGRITY_UNSIGNED\) shadowed/,
    );
  });

  it('documents every command in --help', async () => {
    const p = await makeCatalogProject();
    for (const [command, words] of [
      ['search', ['--type', '--space', '--limit', 'FTS operators']],
      ['load', ['--allow-xml-only', 'metadata']],
      ['list', ['--space', '[type]']],
    ] as const) {
      const res = await run(p, command, '--help');
      expect(res.code).toBe(0);
      for (const word of words) expect(res.stdout, `${command} ${word}`).toContain(word);
    }
  });
});
