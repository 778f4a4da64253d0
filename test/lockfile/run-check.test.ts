import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  generateKeyFiles,
  readSigner,
  signText,
  trustSetOf,
  type Signer,
  type TrustedKey,
} from '../../src/integrity/index.js';
import { keyDir, type SpaceName, type Spaces } from '../../src/items/index.js';
import {
  checkChainShape,
  checkDeps,
  checkLockfile,
  checkPins,
  lockError,
  lockfileDir,
  readOwnKey,
  relativeToBase,
  serializeLockfile,
  type ChainLink,
  type FoundLockfile,
  type LockInUse,
  type LockMismatch,
  type Lockfile,
  type VerifiedDeps,
} from '../../src/lockfile/index.js';
import { refusal } from '../helpers/refusal.js';
import { makeTempSpaces } from '../helpers/temp-space.js';

const TOOL = 't/x';
const A = 'a'.repeat(64);
const B = 'b'.repeat(64);

function link(itemId: string, space: SpaceName, integrity = A, raw?: Uint8Array): ChainLink {
  return {
    itemId,
    space,
    path: `/nowhere/${itemId}.py`,
    extension: '.py',
    toolType: 'python',
    executorId: null,
    version: '1.0.0',
    integrity,
    ...(raw === undefined ? {} : { raw }),
  };
}

function lockOf(version: string, extra: Partial<Lockfile> = {}): Lockfile {
  return {
    lockfileVersion: 1,
    generatedAt: '2026-02-11T00:00:00Z',
    root: { toolId: TOOL, version, integrity: A },
    resolvedChain: [
      { itemId: TOOL, space: 'project', toolType: 'python', executorId: null, integrity: A },
    ],
    registry: null,
    signature: null,
    ...extra,
  };
}

function spacesOf(): Spaces {
  const t = makeTempSpaces();
  return { project: t.project, user: t.user, system: t.system };
}

async function withKey(): Promise<{ spaces: Spaces; own: TrustedKey; signer: Signer }> {
  const spaces = spacesOf();
  await generateKeyFiles(keyDir(spaces));
  return {
    spaces,
    own: readOwnKey(spaces) as TrustedKey,
    signer: await readSigner(keyDir(spaces)),
  };
}

function place(spaces: Spaces, space: SpaceName, lock: Lockfile, signer: Signer | null): string {
  const text = serializeLockfile(lock);
  const path = join(lockfileDir(spaces, space), `${TOOL}@${lock.root.version}.lock.json`);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(
    path,
    signer === null ? text : signText(text, { itemType: 'tool', extension: '.json', signer }).text,
  );
  return path;
}

/** The run's chain, its root carrying the bytes it verified (so nothing is read from disk). */
const verifiedChain = [link(TOOL, 'project', A, new TextEncoder().encode('X = 1\n'))];

function found(lockfile: Lockfile, path = '/locks/t/x@1.0.0.lock.json'): FoundLockfile {
  return { lockfile, path, space: 'project', text: serializeLockfile(lockfile) };
}

function inUse(lockfile: Lockfile): LockInUse {
  return { found: found(lockfile), trusted: false };
}

function mismatch(over: Partial<LockMismatch> = {}): LockMismatch {
  return {
    subject: 'a.py',
    kind: 'dep-changed',
    path: null,
    expected: `sha256:${A}`,
    actual: `sha256:${B}`,
    stale: false,
    detail: 'changed',
    ...over,
  };
}

function thrown(fn: () => void): { code: string; message: string; details: unknown } {
  try {
    fn();
  } catch (error) {
    const e = error as { code: string; message: string; details: unknown };
    return { code: e.code, message: e.message, details: e.details };
  }
  throw new Error('expected a refusal, but nothing was thrown');
}

describe('checkLockfile()', () => {
  it('is null without a lockfile, and refuses LOCKFILE_MISSING in frozen mode', async () => {
    const spaces = spacesOf();
    expect(await checkLockfile(spaces, TOOL, '1.0.0', trustSetOf([]), false)).toBeNull();
    const r = await refusal(checkLockfile(spaces, TOOL, '1.0.0', trustSetOf([]), true));
    expect(r.code).toBe('LOCKFILE_MISSING');
    expect(r.details).toEqual({ toolId: TOOL, version: '1.0.0' });
  });

  it('refuses LOCKFILE_ROLLBACK when the user’s key pinned a newer version, naming `rye lock remove`', async () => {
    const { spaces, signer } = await withKey();
    const newer = place(spaces, 'project', lockOf('2.0.0'), signer);
    const r = await refusal(checkLockfile(spaces, TOOL, '1.0.0', trustSetOf([]), false));
    expect(r.code).toBe('LOCKFILE_ROLLBACK');
    expect(r.details).toMatchObject({
      newerVersion: '2.0.0',
      lockfile: newer,
      fix: `rye lock remove ${TOOL} --version 2.0.0`,
    });
  });

  it('names the file to remove when the newer own lockfile is in the read-only system space', async () => {
    const { spaces, signer } = await withKey();
    const newer = place(spaces, 'system', lockOf('2.0.0'), signer);
    const r = await refusal(checkLockfile(spaces, TOOL, '1.0.0', trustSetOf([]), true));
    expect(r.code).toBe('LOCKFILE_ROLLBACK');
    expect(r.details).toMatchObject({ fix: `remove ${newer}` });
  });

  it('trusts a lockfile signed by the user’s own key when the trust set holds that key', async () => {
    const { spaces, own, signer } = await withKey();
    const path = place(spaces, 'project', lockOf('1.0.0'), signer);
    const lock = await checkLockfile(spaces, TOOL, '1.0.0', trustSetOf([own]), true, verifiedChain);
    expect(lock?.found.path).toBe(path);
    expect(lock?.trusted).toBe(true);
    // A trust set without the user's key gets no fast path from the same lockfile.
    const restricted = await checkLockfile(
      spaces,
      TOOL,
      '1.0.0',
      trustSetOf([]),
      true,
      verifiedChain,
    );
    expect(restricted?.trusted).toBe(false);
  });
});

describe('checkPins()', () => {
  it('passes an unsigned lockfile that pins the chain as built, untrusted', async () => {
    const spaces = spacesOf();
    const lock = await checkPins(
      spaces,
      TOOL,
      found(lockOf('1.0.0')),
      trustSetOf([]),
      null,
      verifiedChain,
    );
    expect(lock.trusted).toBe(false);
  });

  it('refuses LOCKFILE_MISMATCH when the pinned file is gone (a link without bytes is looked up)', async () => {
    const spaces = spacesOf();
    const r = await refusal(
      checkPins(spaces, TOOL, found(lockOf('1.0.0')), trustSetOf([]), undefined, [
        link(TOOL, 'project'),
      ]),
    );
    expect(r.code).toBe('LOCKFILE_MISMATCH');
    expect((r.details.mismatches as LockMismatch[])[0]).toMatchObject({
      subject: TOOL,
      kind: 'missing',
    });
  });

  it('refuses LOCKFILE_MISMATCH when the built chain hashes otherwise', async () => {
    const spaces = spacesOf();
    const chain = [link(TOOL, 'project', B, new TextEncoder().encode('X = 2\n'))];
    const r = await refusal(
      checkPins(spaces, TOOL, found(lockOf('1.0.0')), trustSetOf([]), null, chain),
    );
    expect(r.code).toBe('LOCKFILE_MISMATCH');
    expect((r.details.mismatches as LockMismatch[])[0]).toMatchObject({ kind: 'hash', actual: B });
  });
});

describe('checkChainShape()', () => {
  const pinned = lockOf('1.0.0', {
    resolvedChain: [
      { itemId: TOOL, space: 'project', toolType: 'python', executorId: 'rt/py', integrity: A },
      {
        itemId: 'rt/py',
        space: 'system:rye-core',
        toolType: 'runtime',
        executorId: null,
        integrity: B,
      },
    ],
  });

  it('accepts the pinned ids in the pinned spaces (system:<bundle> is system)', () => {
    expect(() =>
      checkChainShape(TOOL, inUse(pinned), [link(TOOL, 'project'), link('rt/py', 'system')]),
    ).not.toThrow();
  });

  it('refuses another id or space at a link, and a link added or dropped', () => {
    const other = thrown(() =>
      checkChainShape(TOOL, inUse(pinned), [link(TOOL, 'project'), link('rt/py', 'user')]),
    );
    expect(other.code).toBe('LOCKFILE_MISMATCH');
    expect(other.details).toMatchObject({
      mismatches: [
        {
          subject: 'rt/py',
          kind: 'chain',
          expected: 'rt/py (system:rye-core)',
          actual: 'rt/py (user)',
          detail: 'link 2 of the chain differs from the pinned one',
        },
      ],
    });
    const dropped = thrown(() => checkChainShape(TOOL, inUse(pinned), [link(TOOL, 'project')]));
    expect(dropped.details).toMatchObject({
      mismatches: [{ subject: 'rt/py', path: null, actual: null }],
    });
    const added = thrown(() =>
      checkChainShape(TOOL, inUse(pinned), [
        link(TOOL, 'project'),
        link('rt/py', 'system'),
        link('rt/extra', 'user'),
      ]),
    );
    expect(added.details).toMatchObject({
      mismatches: [{ subject: 'rt/extra', expected: null, actual: 'rt/extra (user)' }],
    });
  });
});

describe('checkDeps()', () => {
  const base = '/proj';
  const deps: VerifiedDeps = {
    anchorPath: 'lib',
    scope: 'anchor',
    files: { 'a.py': `sha256:${A}` },
  };
  const v2 = lockOf('1.0.0', { lockfileVersion: 2, verifiedDeps: deps });
  const snapshot = (
    files: [string, string][],
    anchorPath = '/proj/lib',
    scope: VerifiedDeps['scope'] = 'anchor',
  ) => ({
    anchorPath,
    scope,
    files: new Map(files),
  });

  it('accepts no pins for a run that verifies none, and pins that match', () => {
    expect(() => checkDeps(TOOL, inUse(lockOf('1.0.0')), null, base)).not.toThrow();
    expect(() => checkDeps(TOOL, inUse(v2), snapshot([['a.py', A]]), base)).not.toThrow();
  });

  it('refuses pins whose anchor does not apply now', () => {
    const r = thrown(() => checkDeps(TOOL, inUse(v2), null, base));
    expect(r.code).toBe('LOCKFILE_MISMATCH');
    expect(r.details).toMatchObject({
      mismatches: [{ kind: 'anchor', expected: 'lib', actual: null }],
    });
  });

  it('refuses a v1 lockfile for a run that verifies dependencies (a downgrade)', () => {
    const r = thrown(() => checkDeps(TOOL, inUse(lockOf('1.0.0')), snapshot([['a.py', A]]), base));
    expect(r.code).toBe('LOCKFILE_MISMATCH');
    expect(r.details).toMatchObject({ mismatches: [{ kind: 'downgrade', actual: 'lib' }] });
    expect(r.message).toContain(
      'lockfile version 1 pins no dependencies, but this runtime verifies 1 of them',
    );
  });

  it('refuses a moved anchor or another scope', () => {
    const moved = thrown(() => checkDeps(TOOL, inUse(v2), snapshot([['a.py', A]], '/proj'), base));
    expect(moved.details).toMatchObject({
      mismatches: [{ kind: 'anchor', expected: 'lib (anchor)', actual: '. (anchor)' }],
    });
    const scope = thrown(() =>
      checkDeps(TOOL, inUse(v2), snapshot([['a.py', A]], '/proj/lib', 'tool_dir'), base),
    );
    expect(scope.details).toMatchObject({
      mismatches: [{ kind: 'anchor', actual: 'lib (tool_dir)' }],
    });
  });

  it('is LOCKFILE_STALE when every changed or added file is signed by a trusted key', () => {
    const r = thrown(() =>
      checkDeps(
        TOOL,
        inUse(v2),
        snapshot([
          ['a.py', B],
          ['b.py', A],
        ]),
        base,
        () => 'fp1',
      ),
    );
    expect(r.code).toBe('LOCKFILE_STALE');
    expect(r.message).toContain('trusted key fp1');
    expect(r.message).toContain('(and 1 more)');
  });

  it('is LOCKFILE_MISMATCH when a changed file is unsigned, or a pinned file was removed', () => {
    const unsigned = thrown(() => checkDeps(TOOL, inUse(v2), snapshot([['a.py', B]]), base));
    expect(unsigned.code).toBe('LOCKFILE_MISMATCH');
    const removed = thrown(() => checkDeps(TOOL, inUse(v2), snapshot([]), base, () => 'fp1'));
    expect(removed.code).toBe('LOCKFILE_MISMATCH');
    expect(removed.details).toMatchObject({ mismatches: [{ kind: 'dep-removed', stale: false }] });
  });
});

describe('lockError()', () => {
  it('words a stale pin without a named key, and a mismatch with nothing on either side', () => {
    const stale = lockError(TOOL, found(lockOf('1.0.0')), [mismatch({ stale: true })]);
    expect(stale.code).toBe('LOCKFILE_STALE');
    expect(stale.message).toContain('signed by a trusted key');
    expect(stale.message).not.toContain('more)');
    const none = lockError(TOOL, found(lockOf('1.0.0')), [
      mismatch({ expected: null, actual: null }),
    ]);
    expect(none.code).toBe('LOCKFILE_MISMATCH');
    expect(none.message).toContain('pins a.py at (nothing) but finds (nothing)');
    expect(none.details).toMatchObject({ fix: `rye lock update ${TOOL}` });
  });
});

describe('relativeToBase()', () => {
  it('is `.` for the base itself and `/`-separated below it', () => {
    expect(relativeToBase('/proj', '/proj')).toBe('.');
    expect(relativeToBase('/proj', join('/proj', 'a', 'b'))).toBe('a/b');
  });
});
