import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateKeyFiles, trustSetOf } from '../../src/integrity/index.js';
import { keyDir, type SpaceName, type Spaces } from '../../src/items/index.js';
import {
  buildLockfile,
  lockfileDir,
  parseLockfile,
  saveLockfile,
  updateLockfileWith,
  type ChainLink,
  type PrepareToPin,
} from '../../src/lockfile/index.js';
import { refusal } from '../helpers/refusal.js';
import { makeTempSpaces } from '../helpers/temp-space.js';

const TOOL = 'web/scraper';
const A = 'a'.repeat(64);
const B = 'b'.repeat(64);
const NOW = new Date('2026-02-11T00:00:00Z');
const LATER = new Date('2026-03-01T00:00:00Z');

function link(
  space: SpaceName = 'project',
  integrity = A,
  version: string | null = '1.0.0',
): ChainLink {
  return {
    itemId: TOOL,
    space,
    path: `/nowhere/${TOOL}.py`,
    extension: '.py',
    toolType: 'python',
    executorId: null,
    version,
    integrity,
  };
}

function spacesOf(): Spaces {
  const t = makeTempSpaces();
  return { project: t.project, user: t.user, system: t.system };
}

const lockPath = (spaces: Spaces) =>
  join(lockfileDir(spaces, 'project'), `${TOOL}@1.0.0.lock.json`);

describe('buildLockfile()', () => {
  it('builds v1 without dependencies, a version-less root pinned as 0.0.0', () => {
    const lock = buildLockfile([link('project', A, null)], '/proj', null, NOW);
    expect(lock).toEqual({
      lockfileVersion: 1,
      generatedAt: '2026-02-11T00:00:00Z',
      root: { toolId: TOOL, version: '0.0.0', integrity: A },
      resolvedChain: [
        { itemId: TOOL, space: 'project', toolType: 'python', executorId: null, integrity: A },
      ],
      registry: null,
      signature: null,
    });
  });

  it('builds v2 with the anchor relative to the base and each raw hash prefixed', () => {
    const deps = {
      anchorPath: '/proj/lib',
      scope: 'tool_dir' as const,
      files: new Map([['a.py', B]]),
    };
    const lock = buildLockfile([link()], '/proj', deps, NOW, { name: 'hub' });
    expect(lock.lockfileVersion).toBe(2);
    expect(lock.registry).toEqual({ name: 'hub' });
    expect(lock.verifiedDeps).toEqual({
      anchorPath: 'lib',
      scope: 'tool_dir',
      files: { 'a.py': `sha256:${B}` },
    });
  });
});

describe('saveLockfile()', () => {
  it('writes an unsigned lockfile without a key, and keeps it byte for byte on a same save', async () => {
    const spaces = spacesOf();
    const first = await saveLockfile(
      spaces,
      link(),
      buildLockfile([link()], spaces.project, null, NOW),
    );
    expect(first.unchanged).toBe(false);
    expect(first.path).toBe(lockPath(spaces));
    const text = readFileSync(first.path, 'utf8');
    expect(parseLockfile(text, first.path).signature).toBeNull();
    const again = await saveLockfile(
      spaces,
      link(),
      buildLockfile([link()], spaces.project, null, LATER),
    );
    expect(again.unchanged).toBe(true);
    expect(readFileSync(first.path, 'utf8')).toBe(text);
  });

  it('signs with the user key, keeps a same save, and rewrites for other content', async () => {
    const spaces = spacesOf();
    await generateKeyFiles(keyDir(spaces));
    const first = await saveLockfile(
      spaces,
      link(),
      buildLockfile([link()], spaces.project, null, NOW),
    );
    const text = readFileSync(first.path, 'utf8');
    expect(parseLockfile(text, first.path).signature).not.toBeNull();
    const same = await saveLockfile(
      spaces,
      link(),
      buildLockfile([link()], spaces.project, null, LATER),
    );
    expect(same.unchanged).toBe(true);
    expect(readFileSync(first.path, 'utf8')).toBe(text);
    const other = await saveLockfile(
      spaces,
      link('project', B),
      buildLockfile([link('project', B)], spaces.project, null, LATER),
    );
    expect(other.unchanged).toBe(false);
    expect(parseLockfile(readFileSync(first.path, 'utf8'), first.path).root.integrity).toBe(B);
  });

  it('replaces a lockfile signed by another key', async () => {
    const spaces = spacesOf();
    await generateKeyFiles(keyDir(spaces));
    await saveLockfile(spaces, link(), buildLockfile([link()], spaces.project, null, NOW));
    await generateKeyFiles(keyDir(spaces), { force: true });
    const rekeyed = await saveLockfile(
      spaces,
      link(),
      buildLockfile([link()], spaces.project, null, NOW),
    );
    expect(rekeyed.unchanged).toBe(false);
  });

  it('rewrites a signed lockfile unsigned once there is no key', async () => {
    const signed = spacesOf();
    await generateKeyFiles(keyDir(signed));
    const first = await saveLockfile(
      signed,
      link(),
      buildLockfile([link()], signed.project, null, NOW),
    );
    const text = readFileSync(first.path, 'utf8');
    const spaces = spacesOf();
    mkdirSync(join(lockfileDir(spaces, 'project'), 'web'), { recursive: true });
    writeFileSync(lockPath(spaces), text);
    const after = await saveLockfile(
      spaces,
      link(),
      buildLockfile([link()], spaces.project, null, NOW),
    );
    expect(after.unchanged).toBe(false);
    expect(parseLockfile(readFileSync(after.path, 'utf8'), after.path).signature).toBeNull();
  });

  it('with carryRegistry, keeps the registry of a lockfile that pinned the same root content only', async () => {
    const spaces = spacesOf();
    await saveLockfile(
      spaces,
      link(),
      buildLockfile([link()], spaces.project, null, NOW, { name: 'hub' }),
    );
    const kept = await saveLockfile(
      spaces,
      link(),
      buildLockfile([link()], spaces.project, null, NOW),
      {
        carryRegistry: true,
      },
    );
    expect(kept.lockfile.registry).toEqual({ name: 'hub' });
    expect(kept.unchanged).toBe(true);
    const changed = await saveLockfile(
      spaces,
      link('project', B),
      buildLockfile([link('project', B)], spaces.project, null, NOW),
      { carryRegistry: true },
    );
    expect(changed.lockfile.registry).toBeNull();
    await saveLockfile(
      spaces,
      link(),
      buildLockfile([link()], spaces.project, null, NOW, { name: 'hub' }),
    );
    const dropped = await saveLockfile(
      spaces,
      link(),
      buildLockfile([link()], spaces.project, null, NOW),
    );
    expect(dropped.lockfile.registry).toBeNull();
    expect(dropped.unchanged).toBe(false);
  });

  it('replaces a malformed lockfile in place', async () => {
    const spaces = spacesOf();
    mkdirSync(join(lockfileDir(spaces, 'project'), 'web'), { recursive: true });
    writeFileSync(lockPath(spaces), '{ not json');
    const saved = await saveLockfile(
      spaces,
      link(),
      buildLockfile([link()], spaces.project, null, NOW),
    );
    expect(saved.unchanged).toBe(false);
    expect(parseLockfile(readFileSync(saved.path, 'utf8'), saved.path).root.toolId).toBe(TOOL);
  });

  it('does not read through a folder at the name, and the write then fails', async () => {
    const spaces = spacesOf();
    mkdirSync(lockPath(spaces), { recursive: true });
    const r = await refusal(
      saveLockfile(spaces, link(), buildLockfile([link()], spaces.project, null, NOW)),
    );
    expect(r.code).toBe('FILE_WRITE_FAILED');
  });

  it('ignores a lockfile reached through a folder link out of lockfiles/, and refuses to write there', async () => {
    const spaces = spacesOf();
    const outside = mkdtempSync(join(tmpdir(), 'rye-test-out-'));
    const elsewhere = makeTempSpaces();
    // A valid lockfile of the same tool, outside the lockfiles folder.
    const valid = await saveLockfile(
      { project: elsewhere.project, user: elsewhere.user, system: elsewhere.system },
      link(),
      buildLockfile([link()], elsewhere.project, null, NOW),
    );
    writeFileSync(join(outside, `scraper@1.0.0.lock.json`), readFileSync(valid.path));
    mkdirSync(lockfileDir(spaces, 'project'), { recursive: true });
    symlinkSync(outside, join(lockfileDir(spaces, 'project'), 'web'));
    const r = await refusal(
      saveLockfile(spaces, link(), buildLockfile([link()], spaces.project, null, NOW)),
    );
    expect(r.code).toBe('FILE_WRITE_FAILED');
  });

  it('writes a user tool’s lockfile to the user space', async () => {
    const spaces = spacesOf();
    const saved = await saveLockfile(
      spaces,
      link('user'),
      buildLockfile([link('user')], spaces.user, null, NOW),
    );
    expect(saved.path).toBe(join(lockfileDir(spaces, 'user'), `${TOOL}@1.0.0.lock.json`));
  });
});

describe('updateLockfileWith()', () => {
  const prepare =
    (integrity: string): PrepareToPin =>
    async (spaces, toolId) => {
      expect(toolId).toBe(TOOL);
      return {
        chain: [link('project', integrity)],
        pins: { anchorPath: spaces.project, scope: 'anchor', files: new Map([['a.py', A]]) },
        thirdParty: 2,
      };
    };

  it('pins what prepare verified, recording a given registry and carrying it when none is given', async () => {
    const spaces = spacesOf();
    const pinned = await updateLockfileWith(prepare(A), spaces, TOOL, trustSetOf([]), NOW, {
      name: 'hub',
    });
    expect(pinned.thirdParty).toBe(2);
    expect(pinned.unchanged).toBe(false);
    expect(pinned.lockfile.verifiedDeps).toEqual({
      anchorPath: '.',
      scope: 'anchor',
      files: { 'a.py': `sha256:${A}` },
    });
    expect(pinned.lockfile.registry).toEqual({ name: 'hub' });
    const again = await updateLockfileWith(prepare(A), spaces, TOOL, trustSetOf([]));
    expect(again.unchanged).toBe(true);
    expect(again.lockfile.registry).toEqual({ name: 'hub' });
  });

  it('passes a refusal of prepare through, writing nothing', async () => {
    const spaces = spacesOf();
    const failing: PrepareToPin = () => Promise.reject(new Error('no chain'));
    await expect(updateLockfileWith(failing, spaces, TOOL, trustSetOf([]))).rejects.toThrow(
      'no chain',
    );
  });
});
