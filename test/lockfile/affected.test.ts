import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Spaces } from '../../src/items/index.js';
import { lockfileDir, lockfilesAffectedBy, serializeLockfile } from '../../src/lockfile/index.js';
import type { Lockfile } from '../../src/lockfile/index.js';
import { makeTempSpaces } from '../helpers/temp-space.js';

const HASH = 'a'.repeat(64);

function lockPinning(files: readonly string[]): Lockfile {
  return {
    lockfileVersion: 2,
    generatedAt: '2026-02-11T00:00:00Z',
    root: { toolId: 'web/scraper', version: '1.0.0', integrity: HASH },
    resolvedChain: [
      {
        itemId: 'web/scraper',
        space: 'project',
        toolType: 'python',
        executorId: null,
        integrity: HASH,
      },
    ],
    registry: null,
    verifiedDeps: {
      anchorPath: 'tools/web',
      scope: 'anchor',
      files: Object.fromEntries(files.map((f) => [f, `sha256:${HASH}`])),
    },
    signature: null,
  };
}

function setup(lock: Lockfile): { spaces: Spaces; path: string } {
  const t = makeTempSpaces();
  const spaces: Spaces = { project: t.project, user: t.user, system: t.system };
  const path = join(lockfileDir(spaces, 'project'), 'web/scraper@1.0.0.lock.json');
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, serializeLockfile(lock));
  return { spaces, path };
}

describe('lockfilesAffectedBy()', () => {
  it('reports a lockfile that pins a dependency named ..x.py', async () => {
    const { spaces, path } = setup(lockPinning(['..x.py', 'lib/util.py']));
    const signed = [
      {
        itemId: 'web/helper',
        space: 'project' as const,
        path: join(spaces.project, 'tools/web/..x.py'),
      },
    ];
    expect(await lockfilesAffectedBy(spaces, signed)).toEqual([
      { path, toolId: 'web/scraper', pins: '..x.py' },
    ]);
  });

  it('reports a lockfile that pins a nested dependency by its /-separated path', async () => {
    const { spaces, path } = setup(lockPinning(['lib/util.py']));
    const signed = [
      {
        itemId: 'web/lib/util',
        space: 'project' as const,
        path: join(spaces.project, 'tools/web/lib/util.py'),
      },
    ];
    expect(await lockfilesAffectedBy(spaces, signed)).toEqual([
      { path, toolId: 'web/scraper', pins: 'lib/util.py' },
    ]);
  });

  it('ignores a signed file outside the pinned scope with the same relative name', async () => {
    const { spaces } = setup(lockPinning(['..x.py']));
    const signed = [
      { itemId: 'x', space: 'project' as const, path: join(spaces.project, 'tools/..x.py') },
    ];
    expect(await lockfilesAffectedBy(spaces, signed)).toEqual([]);
  });
});

describe('lockfilesAffectedBy() and chain elements', () => {
  it('reports a lockfile whose chain pins the signed item in the same space only', async () => {
    const { spaces, path } = setup(lockPinning([]));
    const tool = join(spaces.project, '.ai/tools/web/scraper.py');
    expect(
      await lockfilesAffectedBy(spaces, [{ itemId: 'web/scraper', space: 'project', path: tool }]),
    ).toEqual([{ path, toolId: 'web/scraper', pins: 'web/scraper' }]);
    const userTool = join(spaces.user, '.ai/tools/web/scraper.py');
    expect(
      await lockfilesAffectedBy(spaces, [{ itemId: 'web/scraper', space: 'user', path: userTool }]),
    ).toEqual([]);
  });

  it('skips a lockfile that does not parse, and a v1 lockfile that pins no files', async () => {
    const lock = lockPinning(['lib/util.py']);
    const { spaces } = setup(lock);
    const dir = lockfileDir(spaces, 'project');
    writeFileSync(join(dir, 'web/broken@1.0.0.lock.json'), 'not json');
    const v1: Lockfile = {
      lockfileVersion: 1,
      generatedAt: lock.generatedAt,
      root: { ...lock.root, toolId: 'web/old' },
      resolvedChain: lock.resolvedChain.map((e) => ({ ...e, itemId: 'web/old' })),
      registry: null,
      signature: null,
    };
    writeFileSync(join(dir, 'web/old@1.0.0.lock.json'), serializeLockfile(v1));
    const dep = join(spaces.project, 'tools/web/lib/util.py');
    expect(
      (
        await lockfilesAffectedBy(spaces, [{ itemId: 'web/lib/util', space: 'project', path: dep }])
      ).map((a) => [a.toolId, a.pins]),
    ).toEqual([['web/scraper', 'lib/util.py']]);
  });
});
