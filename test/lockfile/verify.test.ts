import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RyeError } from '../../src/errors/index.js';
import type { SpaceName, Spaces } from '../../src/items/index.js';
import {
  lockfileDir,
  serializeLockfile,
  verifyLockfilesWith,
  type CheckLockfile,
  type FoundLockfile,
  type Lockfile,
} from '../../src/lockfile/index.js';
import { makeTempSpaces } from '../helpers/temp-space.js';

const A = 'a'.repeat(64);

function lockOf(toolId: string, version: string): Lockfile {
  return {
    lockfileVersion: 1,
    generatedAt: '2026-02-11T00:00:00Z',
    root: { toolId, version, integrity: A },
    resolvedChain: [
      { itemId: toolId, space: 'project', toolType: 'python', executorId: null, integrity: A },
    ],
    registry: null,
    signature: null,
  };
}

function spacesOf(): Spaces {
  const t = makeTempSpaces();
  return { project: t.project, user: t.user, system: t.system };
}

function place(spaces: Spaces, space: SpaceName, name: string, text: string): string {
  const path = join(lockfileDir(spaces, space), name);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  return path;
}

function placeLock(spaces: Spaces, space: SpaceName, toolId: string, version: string): string {
  return place(
    spaces,
    space,
    `${toolId}@${version}.lock.json`,
    serializeLockfile(lockOf(toolId, version)),
  );
}

/** A check that refuses as `verdicts` says for each tool (no entry: passes), recording what it saw. */
function checkBy(verdicts: Record<string, Error>, seen: FoundLockfile[] = []): CheckLockfile {
  return (found) => {
    seen.push(found);
    const verdict = verdicts[found.lockfile.root.toolId];
    return verdict === undefined ? Promise.resolve() : Promise.reject(verdict);
  };
}

describe('verifyLockfilesWith()', () => {
  it('gives each lockfile a status: ok, stale, mismatch, or invalid without calling the check', async () => {
    const spaces = spacesOf();
    const ok = placeLock(spaces, 'project', 'a/ok', '1.0.0');
    const stale = placeLock(spaces, 'project', 'a/stale', '1.0.0');
    const bad = placeLock(spaces, 'user', 'a/bad', '2.0.0');
    const broken = place(spaces, 'project', 'a/broken@1.0.0.lock.json', '{ not json');
    const seen: FoundLockfile[] = [];
    const statuses = await verifyLockfilesWith(
      checkBy(
        {
          'a/stale': new RyeError('LOCKFILE_STALE', 'stale pin'),
          'a/bad': new RyeError('LOCKFILE_MISMATCH', 'bad pin'),
        },
        seen,
      ),
      spaces,
    );
    const byPath = new Map(statuses.map((s) => [s.path, s]));
    expect(byPath.get(ok)).toEqual({
      path: ok,
      space: 'project',
      toolId: 'a/ok',
      version: '1.0.0',
      status: 'ok',
      code: null,
      message: null,
    });
    expect(byPath.get(stale)).toMatchObject({
      status: 'stale',
      code: 'LOCKFILE_STALE',
      message: 'stale pin',
    });
    expect(byPath.get(bad)).toMatchObject({
      space: 'user',
      status: 'mismatch',
      code: 'LOCKFILE_MISMATCH',
      message: 'bad pin',
    });
    expect(byPath.get(broken)).toMatchObject({ status: 'invalid', code: 'LOCKFILE_INVALID' });
    expect(byPath.get(broken)?.message).toEqual(expect.any(String));
    expect(statuses).toHaveLength(4);
    // The check is given each parsed lockfile with its path, space and text.
    expect(seen.map((f) => f.path).sort()).toEqual([ok, stale, bad].sort());
    expect(seen.find((f) => f.path === ok)?.text).toBe(serializeLockfile(lockOf('a/ok', '1.0.0')));
  });

  it('checks only the lockfiles of the tool named', async () => {
    const spaces = spacesOf();
    const mine = placeLock(spaces, 'project', 'a/mine', '1.0.0');
    placeLock(spaces, 'project', 'a/other', '1.0.0');
    const statuses = await verifyLockfilesWith(checkBy({}), spaces, 'a/mine');
    expect(statuses.map((s) => [s.path, s.status])).toEqual([[mine, 'ok']]);
  });

  it('is empty when there are no lockfiles', async () => {
    expect(await verifyLockfilesWith(checkBy({}), spacesOf())).toEqual([]);
  });

  it('lets an error that is not a refusal (a bug in the check) through', async () => {
    const spaces = spacesOf();
    placeLock(spaces, 'project', 'a/ok', '1.0.0');
    await expect(
      verifyLockfilesWith(checkBy({ 'a/ok': new TypeError('boom') }), spaces),
    ).rejects.toThrow(TypeError);
  });
});
