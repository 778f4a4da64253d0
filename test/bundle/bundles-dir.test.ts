import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  bundlesDir,
  findBundlesFor,
  listManifestPaths,
  mayHaveBundlesFor,
} from '../../src/bundle/index.js';
import { resolveSpaces } from '../../src/items/index.js';
import { makeSigner } from '../helpers/keys.js';
import { makeTempSpaces } from '../helpers/temp-space.js';

function spaces() {
  const base = makeTempSpaces();
  return resolveSpaces({ project: base.project, env: base.env });
}

/** A file under the project (written), as an absolute path. */
function file(s: { project: string }, rel: string): string {
  const path = join(s.project, rel);
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, 'x\n');
  return path;
}

/** An (unsigned) manifest of bundle `id` in the project: any file there counts as one. */
function manifest(s: { project: string }, id: string): void {
  file(s, `.ai/bundles/${id}/manifest.yaml`);
}

describe('mayHaveBundlesFor()', () => {
  it('is false when no space has a bundles folder, and then no manifest is listed', async () => {
    const s = spaces();
    expect(mayHaveBundlesFor(s, file(s, '.ai/tools/a/b/x.py'))).toBe(false);
    expect(mayHaveBundlesFor(s, file(s, 'web/app.js'))).toBe(false);
    expect(await listManifestPaths(s)).toEqual([]);
  });

  it('is true for a file outside .ai/tools/ once the space holding it has a bundles folder, even an empty one', () => {
    for (const space of ['project', 'user', 'system'] as const) {
      const s = spaces();
      mkdirSync(bundlesDir(s, space), { recursive: true });
      // Only the manifests of a space whose base folder holds the file count.
      for (const rel of ['web/app.js', '.ai/knowledge/a/k.md', '.ai/plans/a/p.md'])
        expect(mayHaveBundlesFor(s, file(s, rel)), `${space} ${rel}`).toBe(space === 'project');
    }
  });

  it('for a tool, is true only when a bundle whose tool folder holds it has a manifest', () => {
    const s = spaces();
    const tool = file(s, '.ai/tools/apps/todo/lib/run.py');
    manifest(s, 'apps/other');
    manifest(s, 'apps/todo2');
    manifest(s, 'apps/todo/lib/run.py');
    expect(mayHaveBundlesFor(s, tool)).toBe(false);
    for (const id of ['apps', 'apps/todo', 'apps/todo/lib']) {
      const t = spaces();
      manifest(t, id);
      expect(mayHaveBundlesFor(t, file(t, '.ai/tools/apps/todo/lib/run.py')), id).toBe(true);
    }
  });

  it('agrees with findBundlesFor(): a tool outside every bundle is covered by none', async () => {
    const s = spaces();
    const { trust } = makeSigner();
    manifest(s, 'apps/other');
    const tool = file(s, '.ai/tools/mine/run.py');
    expect(mayHaveBundlesFor(s, tool)).toBe(false);
    const lookup = await findBundlesFor(s, tool, { trust });
    expect(lookup.covering).toEqual([]);
  });

  it('is true when the bundles path is not a folder, so the listing reports it', async () => {
    const s = spaces();
    mkdirSync(join(s.project, '.ai'), { recursive: true });
    writeFileSync(bundlesDir(s, 'project'), 'not a folder');
    expect(mayHaveBundlesFor(s, file(s, '.ai/tools/a/x.py'))).toBe(true);
    await expect(listManifestPaths(s)).rejects.toMatchObject({ code: 'FILE_UNREADABLE' });
  });
});
