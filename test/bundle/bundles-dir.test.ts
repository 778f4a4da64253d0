import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bundlesDir, listManifestPaths, mayHaveBundles } from '../../src/bundle/index.js';
import { resolveSpaces } from '../../src/items/index.js';
import { makeTempSpaces } from '../helpers/temp-space.js';

function spaces() {
  const base = makeTempSpaces();
  return resolveSpaces({ project: base.project, env: base.env });
}

describe('mayHaveBundles()', () => {
  it('is false only when no space has a bundles folder, and then no manifest is listed', async () => {
    const s = spaces();
    expect(mayHaveBundles(s)).toBe(false);
    expect(await listManifestPaths(s)).toEqual([]);
  });

  it('is true as soon as one space has a bundles folder, even an empty one', () => {
    for (const space of ['project', 'user', 'system'] as const) {
      const s = spaces();
      mkdirSync(bundlesDir(s, space), { recursive: true });
      expect(mayHaveBundles(s), space).toBe(true);
    }
  });

  it('is true when the bundles path is not a folder, so the listing reports it', async () => {
    const s = spaces();
    mkdirSync(join(s.project, '.ai'), { recursive: true });
    writeFileSync(bundlesDir(s, 'project'), 'not a folder');
    expect(mayHaveBundles(s)).toBe(true);
    await expect(listManifestPaths(s)).rejects.toMatchObject({ code: 'FILE_UNREADABLE' });
  });
});
