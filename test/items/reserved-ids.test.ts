import { describe, expect, it } from 'vitest';
import {
  assertNotReserved,
  ignoredReservedFiles,
  isReservedId,
  reservedItemPath,
  resolveItem,
  resolveSpaces,
  selectItems,
} from '../../src/items/index.js';
import { refusal } from '../helpers/refusal.js';
import { makeTempSpaces } from '../helpers/temp-space.js';

const RUNTIME = '.ai/tools/rye/core/runtimes/python_script_runtime.yaml';

function setup() {
  const s = makeTempSpaces();
  return { s, spaces: resolveSpaces({ project: s.project, env: s.env }) };
}

describe('isReservedId() and reservedItemPath()', () => {
  it('reserves ids under rye/, in any letter case, and nothing else', () => {
    expect(isReservedId('rye/core/runtimes/node_runtime')).toBe(true);
    expect(isReservedId('RYE/core/x')).toBe(true);
    expect(isReservedId('rye')).toBe(false);
    expect(isReservedId('ryeland/x')).toBe(false);
    expect(isReservedId('apps/rye/x')).toBe(false);
  });

  it('names the reserved id of an item file path, for any item folder', () => {
    expect(reservedItemPath('.ai/tools/rye/core/x.py')).toBe('rye/core/x.py');
    expect(reservedItemPath('.ai/knowledge/rye/k.md')).toBe('rye/k.md');
    expect(reservedItemPath('.ai/tools/apps/rye/x.py')).toBeUndefined();
    expect(reservedItemPath('rye/x.py')).toBeUndefined();
  });

  it('assertNotReserved() refuses with ITEM_ID_RESERVED', () => {
    expect(() => assertNotReserved('rye/x', 'push')).toThrow(/ids under rye\//);
    expect(() => assertNotReserved('apps/x', 'push')).not.toThrow();
  });
});

describe('resolveItem() for ids under rye/', () => {
  it('resolves from system space even when project and user spaces hold the id', async () => {
    const { s, spaces } = setup();
    s.write(RUNTIME, 'project: 1\n');
    s.write(RUNTIME, 'user: 1\n', s.user);
    s.write(RUNTIME, 'system: 1\n', s.system);
    const found = await resolveItem(spaces, 'tool', 'rye/core/runtimes/python_script_runtime');
    expect(found.space).toBe('system');
  });

  it('refuses with ITEM_ID_RESERVED when only a project file exists, naming it as ignored', async () => {
    const { s, spaces } = setup();
    const path = s.write(RUNTIME, 'project: 1\n');
    const refused = await refusal(
      resolveItem(spaces, 'tool', 'rye/core/runtimes/python_script_runtime'),
    );
    expect(refused.code).toBe('ITEM_ID_RESERVED');
    expect(refused.details['ignored']).toEqual([path]);
  });

  it('is ITEM_NOT_FOUND within project space only when nothing is there', async () => {
    const { spaces } = setup();
    const refused = await refusal(resolveItem(spaces, 'tool', 'rye/none', ['project']));
    expect(refused.code).toBe('ITEM_NOT_FOUND');
    expect(refused.message).toContain('system space only');
  });

  it('leaves other ids resolving project → user → system', async () => {
    const { s, spaces } = setup();
    s.write('.ai/tools/apps/x.py', 'x = 1\n');
    s.write('.ai/tools/apps/x.py', 'x = 2\n', s.system);
    expect((await resolveItem(spaces, 'tool', 'apps/x')).space).toBe('project');
  });
});

describe('selectItems() and ignoredReservedFiles()', () => {
  it('never selects a project rye/ file by glob, and lists it as ignored', async () => {
    const { s, spaces } = setup();
    s.write(RUNTIME, 'project: 1\n');
    s.write(RUNTIME, 'system: 1\n', s.system);
    const selected = await selectItems(spaces, 'tool', 'rye/**');
    expect(selected.map((f) => f.space)).toEqual(['system']);
    const ignored = await ignoredReservedFiles(spaces, 'tool', 'rye/**');
    expect(ignored.map((f) => [f.itemId, f.space])).toEqual([
      ['rye/core/runtimes/python_script_runtime', 'project'],
    ]);
    expect(await ignoredReservedFiles(spaces, 'tool', 'apps/**')).toEqual([]);
  });
});
