import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SpaceName, Spaces } from '../../src/items/index.js';
import {
  MAX_LOCKFILE_BYTES,
  findLockfile,
  listLockfiles,
  lockfileDir,
  removeLockfiles,
  serializeLockfile,
  writeLockfile,
} from '../../src/lockfile/index.js';
import type { Lockfile } from '../../src/lockfile/index.js';
import { makeTempSpaces } from '../helpers/temp-space.js';

function lockOf(toolId: string, version: string, integrity = 'a'.repeat(64)): Lockfile {
  return {
    lockfileVersion: 1,
    generatedAt: '2026-02-11T00:00:00Z',
    root: { toolId, version, integrity },
    resolvedChain: [
      { itemId: toolId, space: 'project', toolType: 'python', executorId: null, integrity },
    ],
    registry: null,
    signature: null,
  };
}

function setup(): Spaces {
  const t = makeTempSpaces();
  return { project: t.project, user: t.user, system: t.system };
}

/** Place a lockfile by hand (the system space is never written by the library). */
function place(
  spaces: Spaces,
  space: SpaceName,
  lock: Lockfile,
  text = serializeLockfile(lock),
): string {
  const path = join(
    lockfileDir(spaces, space),
    `${lock.root.toolId}@${lock.root.version}.lock.json`,
  );
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  return path;
}

describe('writeLockfile() follows the root tool space (seed 000 "Lockfile Scope")', () => {
  const rows: [SpaceName, SpaceName][] = [
    ['project', 'project'],
    ['user', 'user'],
    ['system', 'user'],
  ];
  for (const [rootSpace, expected] of rows) {
    it(`a ${rootSpace} tool's lockfile goes to the ${expected} space`, async () => {
      const spaces = setup();
      const lock = lockOf('web/scraper', '1.0.0');
      const path = await writeLockfile(spaces, rootSpace, serializeLockfile(lock), lock);
      expect(path).toBe(join(lockfileDir(spaces, expected), 'web/scraper@1.0.0.lock.json'));
      expect(readFileSync(path, 'utf8')).toBe(serializeLockfile(lock));
      expect(existsSync(lockfileDir(spaces, 'system'))).toBe(false);
    });
  }

  it('refuses a text that pins another tool than the lockfile names', async () => {
    const spaces = setup();
    const text = serializeLockfile(lockOf('web/other', '1.0.0'));
    await expect(
      writeLockfile(spaces, 'user', text, lockOf('web/scraper', '1.0.0')),
    ).rejects.toMatchObject({
      code: 'LOCKFILE_INVALID',
    });
  });

  it('refuses a nested folder that a symbolic link leads out of lockfiles/', async () => {
    const spaces = setup();
    const outside = join(spaces.project, 'outside');
    mkdirSync(outside);
    mkdirSync(lockfileDir(spaces, 'user'), { recursive: true });
    symlinkSync(outside, join(lockfileDir(spaces, 'user'), 'web'));
    const lock = lockOf('web/scraper', '1.0.0');
    await expect(
      writeLockfile(spaces, 'user', serializeLockfile(lock), lock),
    ).rejects.toMatchObject({
      code: 'FILE_WRITE_FAILED',
    });
    expect(existsSync(join(outside, 'scraper@1.0.0.lock.json'))).toBe(false);
  });
});

describe('findLockfile() reads project → user → system', () => {
  it('a project lockfile shadows user and system ones', async () => {
    const spaces = setup();
    for (const space of ['project', 'user', 'system'] as const) {
      place(spaces, space, lockOf('t/x', '1.0.0', (space === 'project' ? '1' : '2').repeat(64)));
    }
    const found = await findLockfile(spaces, 't/x', '1.0.0');
    expect(found?.space).toBe('project');
    expect(found?.lockfile.root.integrity).toBe('1'.repeat(64));
    expect(found?.text).toBe(serializeLockfile(found?.lockfile as Lockfile));
  });

  it('a user lockfile shadows a system one', async () => {
    const spaces = setup();
    place(spaces, 'user', lockOf('t/x', '1.0.0', '1'.repeat(64)));
    place(spaces, 'system', lockOf('t/x', '1.0.0', '2'.repeat(64)));
    const found = await findLockfile(spaces, 't/x', '1.0.0');
    expect(found?.space).toBe('user');
    expect(found?.lockfile.root.integrity).toBe('1'.repeat(64));
  });

  it('a system lockfile is found when it is the only one', async () => {
    const spaces = setup();
    const path = place(spaces, 'system', lockOf('t/x', '1.0.0'));
    expect(await findLockfile(spaces, 't/x', '1.0.0')).toMatchObject({ space: 'system', path });
  });

  it('returns null when no space has one', async () => {
    expect(await findLockfile(setup(), 't/x', '1.0.0')).toBeNull();
  });

  it('throws for a broken project lockfile instead of falling through to the user one', async () => {
    const spaces = setup();
    const path = place(spaces, 'project', lockOf('t/x', '1.0.0'), '{"lockfile_version": 1');
    place(spaces, 'user', lockOf('t/x', '1.0.0'));
    await expect(findLockfile(spaces, 't/x', '1.0.0')).rejects.toMatchObject({
      code: 'LOCKFILE_INVALID',
      message: expect.stringContaining(path),
    });
  });

  it('throws LOCKFILE_VERSION_UNSUPPORTED for a future version', async () => {
    const spaces = setup();
    const text = serializeLockfile(lockOf('t/x', '1.0.0')).replace(
      '"lockfile_version": 1',
      '"lockfile_version": 3',
    );
    place(spaces, 'user', lockOf('t/x', '1.0.0'), text);
    await expect(findLockfile(spaces, 't/x', '1.0.0')).rejects.toMatchObject({
      code: 'LOCKFILE_VERSION_UNSUPPORTED',
    });
  });

  it('throws for a lockfile filed under another tool name', async () => {
    const spaces = setup();
    place(spaces, 'user', lockOf('t/x', '1.0.0'), serializeLockfile(lockOf('t/y', '1.0.0')));
    await expect(findLockfile(spaces, 't/x', '1.0.0')).rejects.toMatchObject({
      code: 'LOCKFILE_INVALID',
    });
  });
});

describe('listLockfiles()', () => {
  it('lists every space, nested ones included, reporting a bad file without throwing', async () => {
    const spaces = setup();
    const good = place(spaces, 'project', lockOf('web/scraper', '1.0.0'));
    const bad = place(spaces, 'user', lockOf('t/x', '2.0.0'), 'not json');
    const sys = place(spaces, 'system', lockOf('z', '0.1.0'));
    writeFileSync(join(lockfileDir(spaces, 'user'), 'notes.txt'), 'ignored');
    const listed = await listLockfiles(spaces);
    expect(listed.map((l) => [l.space, l.path, l.toolId, l.version])).toEqual([
      ['project', good, 'web/scraper', '1.0.0'],
      ['user', bad, 't/x', '2.0.0'],
      ['system', sys, 'z', '0.1.0'],
    ]);
    expect(listed[0]?.lockfile?.root.toolId).toBe('web/scraper');
    expect(listed[1]?.lockfile).toBeUndefined();
    expect(listed[0]?.text).toBe(readFileSync(good, 'utf8'));
    expect(listed[1]?.error?.code).toBe('LOCKFILE_INVALID');
  });

  it('does not follow symbolic links', async () => {
    const spaces = setup();
    const real = place(spaces, 'project', lockOf('a', '1.0.0'));
    const userDir = lockfileDir(spaces, 'user');
    mkdirSync(userDir, { recursive: true });
    symlinkSync(real, join(userDir, 'a@1.0.0.lock.json'));
    symlinkSync(dirname(real), join(userDir, 'linked'));
    expect((await listLockfiles(spaces)).map((l) => l.space)).toEqual(['project']);
  });

  it('reports a file name that is not <tool_id>@<version>.lock.json', async () => {
    const spaces = setup();
    mkdirSync(lockfileDir(spaces, 'user'), { recursive: true });
    writeFileSync(join(lockfileDir(spaces, 'user'), 'noversion.lock.json'), '{}');
    const [entry] = await listLockfiles(spaces);
    expect(entry?.error?.code).toBe('LOCKFILE_INVALID');
  });
});

describe('removeLockfiles()', () => {
  it('removes one version from the project and user spaces, never the system', async () => {
    const spaces = setup();
    const p = place(spaces, 'project', lockOf('t/x', '1.0.0'));
    const u = place(spaces, 'user', lockOf('t/x', '1.0.0'));
    const s = place(spaces, 'system', lockOf('t/x', '1.0.0'));
    const kept = place(spaces, 'user', lockOf('t/x', '2.0.0'));
    expect(await removeLockfiles(spaces, 't/x', '1.0.0')).toEqual([p, u]);
    expect([existsSync(p), existsSync(u), existsSync(s), existsSync(kept)]).toEqual([
      false,
      false,
      true,
      true,
    ]);
  });

  it('removes every version when none is given, and only that tool', async () => {
    const spaces = setup();
    const a = place(spaces, 'user', lockOf('t/x', '1.0.0'));
    const b = place(spaces, 'user', lockOf('t/x', '2.0.0'));
    const other = place(spaces, 'user', lockOf('t/x@1', '3'));
    expect((await removeLockfiles(spaces, 't/x')).sort()).toEqual([a, b].sort());
    expect(existsSync(other)).toBe(true);
  });

  it('throws LOCKFILE_NOT_FOUND when there is none (a system one does not count)', async () => {
    const spaces = setup();
    place(spaces, 'system', lockOf('t/x', '1.0.0'));
    await expect(removeLockfiles(spaces, 't/x', '1.0.0')).rejects.toMatchObject({
      code: 'LOCKFILE_NOT_FOUND',
    });
    await expect(removeLockfiles(spaces, 't/x')).rejects.toMatchObject({
      code: 'LOCKFILE_NOT_FOUND',
    });
  });

  it('refuses an invalid tool id before touching anything', async () => {
    await expect(removeLockfiles(setup(), '../x')).rejects.toMatchObject({
      code: 'LOCKFILE_INVALID',
    });
  });
});

describe('lockfiles on unusual file-system entries', () => {
  it('reads a lockfile through a symbolic link at its name', async () => {
    const spaces = setup();
    const real = place(spaces, 'user', lockOf('t/x', '1.0.0'));
    const link = join(lockfileDir(spaces, 'project'), 't/x@1.0.0.lock.json');
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(real, link);
    expect(await findLockfile(spaces, 't/x', '1.0.0')).toMatchObject({
      path: link,
      space: 'project',
    });
  });

  it('refuses a folder, an oversized file and a binary file at the name, never falling through', async () => {
    const spaces = setup();
    place(spaces, 'user', lockOf('t/x', '1.0.0'));
    const path = join(lockfileDir(spaces, 'project'), 't/x@1.0.0.lock.json');
    mkdirSync(path, { recursive: true });
    await expect(findLockfile(spaces, 't/x', '1.0.0')).rejects.toMatchObject({
      code: 'FILE_UNREADABLE',
      details: { path },
    });
    rmSync(path, { recursive: true });
    writeFileSync(path, ' '.repeat(MAX_LOCKFILE_BYTES + 1));
    await expect(findLockfile(spaces, 't/x', '1.0.0')).rejects.toMatchObject({
      code: 'LOCKFILE_INVALID',
      details: { path },
      cause: expect.objectContaining({ code: 'FILE_TOO_LARGE' }),
    });
    writeFileSync(path, Buffer.from([0x7b, 0, 0x7d]));
    await expect(findLockfile(spaces, 't/x', '1.0.0')).rejects.toMatchObject({
      code: 'LOCKFILE_INVALID',
      cause: expect.objectContaining({ code: 'FILE_BINARY' }),
    });
  });

  it('reads a lockfiles folder that is a plain file as empty', async () => {
    const spaces = setup();
    const dir = lockfileDir(spaces, 'project');
    mkdirSync(dirname(dir), { recursive: true });
    writeFileSync(dir, 'not a folder');
    expect(await findLockfile(spaces, 't/x', '1.0.0')).toBeNull();
    expect(await listLockfiles(spaces)).toEqual([]);
  });

  it('fails with FILE_UNREADABLE on a lockfiles folder it cannot open (a symbolic link loop)', async () => {
    const spaces = setup();
    const dir = lockfileDir(spaces, 'project');
    mkdirSync(dirname(dir), { recursive: true });
    symlinkSync(dir, dir);
    await expect(listLockfiles(spaces)).rejects.toMatchObject({
      code: 'FILE_UNREADABLE',
      details: { path: dir },
    });
    await expect(findLockfile(spaces, 't/x', '1.0.0')).rejects.toMatchObject({
      code: 'FILE_UNREADABLE',
      details: { path: join(dir, 't/x@1.0.0.lock.json') },
    });
  });

  it('removes a symbolic link at the name, and leaves a folder there alone', async () => {
    const spaces = setup();
    const real = place(spaces, 'system', lockOf('t/x', '1.0.0'));
    const link = join(lockfileDir(spaces, 'user'), 't/x@1.0.0.lock.json');
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(real, link);
    const folder = join(lockfileDir(spaces, 'project'), 't/x@1.0.0.lock.json');
    mkdirSync(folder, { recursive: true });
    expect(await removeLockfiles(spaces, 't/x', '1.0.0')).toEqual([link]);
    expect([existsSync(real), existsSync(folder)]).toEqual([true, true]);
  });
});
