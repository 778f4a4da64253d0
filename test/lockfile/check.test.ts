import { copyFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  computeContentHash,
  generateKeyPair,
  parsePrivateKey,
  parsePublicKey,
  signText,
  trustSetOf,
} from '../../src/integrity/index.js';
import { resolveSpaces } from '../../src/items/index.js';
import {
  checkChainPins,
  compareDeps,
  lockedSpace,
  trustedSigner,
  type Lockfile,
  type ResolvedElement,
  type VerifiedDeps,
} from '../../src/lockfile/index.js';
import { makeSigner } from '../helpers/keys.js';
import { makeTempSpaces } from '../helpers/temp-space.js';

const A = 'a'.repeat(64);
const B = 'b'.repeat(64);

describe('compareDeps()', () => {
  it('names changed, added and removed files in code-point order', () => {
    const pinned: VerifiedDeps = {
      anchorPath: '.',
      scope: 'anchor',
      files: { '\u{1f600}.py': `sha256:${A}`, 'b.py': `sha256:${A}` },
    };
    const current = new Map([
      ['\u{1f600}.py', B],
      ['\uff5e.py', A],
    ]);
    const found = compareDeps(pinned, current).map((m) => [m.subject, m.kind]);
    // UTF-16 `<` would put the astral name (0xD83D…) before U+FF5E.
    expect(found).toEqual([
      ['b.py', 'dep-removed'],
      ['\uff5e.py', 'dep-added'],
      ['\u{1f600}.py', 'dep-changed'],
    ]);
  });

  it('reports nothing for files that are as pinned', () => {
    const pinned: VerifiedDeps = {
      anchorPath: '.',
      scope: 'anchor',
      files: { 'a.py': `sha256:${A}` },
    };
    expect(compareDeps(pinned, new Map([['a.py', A]]))).toEqual([]);
  });
});

describe('lockedSpace()', () => {
  it("maps the three spaces, and Python's system:<bundle> to system; anything else to null", () => {
    expect(
      ['project', 'user', 'system', 'system:rye-core', 'elsewhere', ''].map(lockedSpace),
    ).toEqual(['project', 'user', 'system', 'system', null, null]);
  });
});

describe('trustedSigner()', () => {
  const pair = generateKeyPair();
  const pub = parsePublicKey(pair.publicKeyPem);
  const signer = { privateKey: parsePrivateKey(pair.privateKeyPem), fingerprint: pub.fingerprint };
  const trust = trustSetOf([{ ...pub, owner: 'me', attestation: '', source: null }]);
  const sign = (at: string) =>
    signText('X = 1\n', { itemType: 'tool', extension: '.py', signer, now: new Date(at) }).text;

  it('names the trusted key of a valid signature, whatever date the line shows', () => {
    const old = sign('2020-01-01T00:00:00Z');
    // The timestamp is outside what the signature covers: rewriting it keeps the signature valid.
    const forged = old.replace('2020-01-01T00:00:00Z', '2099-12-31T23:59:59Z');
    expect(trustedSigner(old, '.py', trust)).toBe(pub.fingerprint);
    expect(trustedSigner(forged, '.py', trust)).toBe(pub.fingerprint);
  });

  it('is null for an unsigned, edited or untrusted file', () => {
    const signed = sign('2026-01-01T00:00:00Z');
    expect(trustedSigner('X = 1\n', '.py', trust)).toBeNull();
    expect(trustedSigner(signed + 'Y = 2\n', '.py', trust)).toBeNull();
    expect(trustedSigner(signed, '.py', trustSetOf([]))).toBeNull();
  });
});

describe('checkChainPins() with the chain just built', () => {
  const { signer, trust } = makeSigner();

  /** A signed project tool `t/x`, written, and as the run's chain holds it. */
  function projectTool(body: string) {
    const s = makeTempSpaces();
    const text = signText(`__version__ = "1.0.0"\n${body}`, {
      itemType: 'tool',
      extension: '.py',
      signer,
    }).text;
    const path = s.write('.ai/tools/t/x.py', text);
    const integrity = computeContentHash(text, 'tool', '.py');
    if (integrity === null) throw new Error('the test tool has no content hash');
    const built: ResolvedElement = {
      itemId: 't/x',
      space: 'project',
      path,
      extension: '.py',
      integrity,
      text: () => text,
    };
    return { spaces: resolveSpaces({ project: s.project, env: s.env }), path, integrity, built };
  }

  function pinned(integrity: string, space = 'project'): Lockfile {
    const element = { itemId: 't/x', space, toolType: 'python', executorId: null, integrity };
    return {
      lockfileVersion: 1,
      generatedAt: '2026-01-01T00:00:00Z',
      root: { toolId: 't/x', version: '1.0.0', integrity },
      resolvedChain: [element],
      registry: null,
      signature: null,
    };
  }

  it('reports what a fresh lookup reports, from the bytes the run verified', async () => {
    const { spaces, path, integrity, built } = projectTool('X = 2\n');
    // Unchanged, and changed and signed by a trusted key (stale): the same either way.
    for (const lock of [pinned(integrity), pinned(A)]) {
      const fresh = await checkChainPins(spaces, lock, trust);
      expect(await checkChainPins(spaces, lock, trust, [built])).toEqual(fresh);
    }
    expect(await checkChainPins(spaces, pinned(A), trust, [built])).toEqual([
      expect.objectContaining({ kind: 'hash', stale: true, signedBy: signer.fingerprint }),
    ]);
    // Not read again: what the run verified (and will run) is compared, even
    // when the file has gone since.
    rmSync(path);
    expect(await checkChainPins(spaces, pinned(integrity), trust, [built])).toEqual([]);
    expect(await checkChainPins(spaces, pinned(integrity), trust)).toEqual([
      expect.objectContaining({ kind: 'missing' }),
    ]);
  });

  it('reports an element of a space it does not know as missing', async () => {
    const { spaces, integrity } = projectTool('X = 4\n');
    expect(await checkChainPins(spaces, pinned(integrity, 'elsewhere'), trust)).toEqual([
      {
        subject: 't/x',
        kind: 'missing',
        path: null,
        expected: integrity,
        actual: null,
        stale: false,
        detail: 'unknown space elsewhere',
      },
    ]);
  });

  it('reports a pinned file that can no longer be read as text as changed, not stale', async () => {
    const { spaces, path, integrity } = projectTool('X = 5\n');
    writeFileSync(path, Buffer.from([0x58, 0, 0x31]));
    expect(await checkChainPins(spaces, pinned(integrity), trust)).toEqual([
      {
        subject: 't/x',
        kind: 'hash',
        path,
        expected: integrity,
        actual: null,
        stale: false,
        detail: 'content changed in project space',
      },
    ]);
  });

  it('reports an edit no trusted key signed as a plain mismatch', async () => {
    const { spaces, path, integrity } = projectTool('X = 6\n');
    writeFileSync(path, 'X = 7\n');
    const [mismatch] = await checkChainPins(spaces, pinned(integrity), trust);
    expect(mismatch).toMatchObject({
      kind: 'hash',
      stale: false,
      actual: computeContentHash('X = 7\n', 'tool', '.py'),
    });
    expect(mismatch).not.toHaveProperty('signedBy');
  });

  it('reports a file that now shadows the pinned one from a higher-precedence space', async () => {
    const { spaces, path, integrity } = projectTool('X = 8\n');
    const userTool = join(spaces.user, '.ai', 'tools', 't', 'x.py');
    mkdirSync(join(userTool, '..'), { recursive: true });
    copyFileSync(path, userTool);
    expect(await checkChainPins(spaces, pinned(integrity, 'user'), trust)).toEqual([
      {
        subject: 't/x',
        kind: 'shadowed',
        path,
        expected: integrity,
        actual: 'project',
        stale: false,
        detail: `now resolves to ${path} in project space, shadowing the pinned user file`,
      },
    ]);
  });

  it('looks up an element pinned in another space than the chain found it in', async () => {
    const { spaces, integrity, built } = projectTool('X = 3\n');
    // Pinned in user space: looked up there (not taken from the chain), and missing.
    expect(
      (await checkChainPins(spaces, pinned(integrity, 'user'), trust, [built])).map((m) => m.kind),
    ).toEqual(['missing']);
  });
});
