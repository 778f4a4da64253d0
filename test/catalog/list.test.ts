import { describe, expect, it } from 'vitest';
import { listItems, type ListedItem } from '../../src/catalog/index.js';
import { makeCatalogProject } from '../helpers/catalog.js';
import { refusal } from '../helpers/refusal.js';

const brief = (items: readonly ListedItem[]): (string | boolean | null)[][] =>
  items.map((i) => [i.item_type, i.item_id, i.space, i.version, i.verdict, i.shadowed]);

describe('listItems()', () => {
  it('lists the file each id resolves to, by type then id, with version and verdict', async () => {
    const p = await makeCatalogProject();
    p.knowledge('notes/guide');
    p.knowledge('notes/guide', { base: p.user });
    p.knowledge('notes/user-only', { base: p.user, signed: false });
    const knowledge = await listItems({ ...p.scope, item_type: 'knowledge' });
    expect(brief(knowledge)).toEqual([
      ['knowledge', 'notes/guide', 'project', '1.0.0', 'ok', false],
      ['knowledge', 'notes/user-only', 'user', '1.0.0', 'unsigned', false],
      ['knowledge', 'rye/core/registry', 'system', '1.0.0', 'ok', false],
      ['knowledge', 'rye/core/runtimes', 'system', '1.0.0', 'ok', false],
      ['knowledge', 'rye/core/signatures', 'system', '1.0.0', 'ok', false],
    ]);
    const everything = await listItems(p.scope);
    expect(new Set(everything.map((i) => i.item_type))).toEqual(new Set(['knowledge', 'tool']));
    expect(everything.filter((i) => i.verdict !== 'ok').map((i) => i.item_id)).toEqual([
      'notes/user-only',
    ]);
  });

  it('with a space, lists that space alone and marks what a higher space shadows', async () => {
    const p = await makeCatalogProject();
    p.knowledge('notes/guide');
    p.knowledge('notes/guide', { base: p.user });
    p.knowledge('notes/mine', { base: p.user });
    expect(brief(await listItems({ ...p.scope, space: 'user' }))).toEqual([
      ['knowledge', 'notes/guide', 'user', '1.0.0', 'ok', true],
      ['knowledge', 'notes/mine', 'user', '1.0.0', 'ok', false],
    ]);
  });

  it('applies the authority filter when given one', async () => {
    const p = await makeCatalogProject();
    p.knowledge('public/a');
    p.knowledge('secret/b');
    const listed = await listItems({
      ...p.scope,
      item_type: 'knowledge',
      visible: (_type, id) => id.startsWith('public/'),
    });
    expect(listed.map((i) => i.item_id)).toEqual(['public/a']);
  });

  it('refuses an unknown type or space', async () => {
    const p = await makeCatalogProject();
    expect((await refusal(listItems({ ...p.scope, item_type: 'skill' }))).code).toBe(
      'ITEM_TYPE_INVALID',
    );
    expect((await refusal(listItems({ ...p.scope, space: 'global' }))).code).toBe('SPACE_INVALID');
  });
});
