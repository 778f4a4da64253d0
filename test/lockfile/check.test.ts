import { describe, expect, it } from 'vitest';
import {
  generateKeyPair,
  parsePrivateKey,
  parsePublicKey,
  signText,
  trustSetOf,
} from '../../src/integrity/index.js';
import { compareDeps, trustedSigner, type VerifiedDeps } from '../../src/lockfile/index.js';

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
