import { describe, expect, it } from 'vitest';
import { publicPemOf } from '../../src/integrity/index.js';
import {
  appendTokenBlock,
  audienceOf,
  mintToken,
  newHolderKey,
  parseCapability,
  sealToken,
  verifyPresented,
  type JtiHolder,
} from '../../src/capabilities/index.js';
import { makeSigner } from '../helpers/keys.js';
import { thrown } from './thrown.js';

const NOW_MS = 1_800_000_000_000;
const ROOT = 'orchestrate-01jf00000000000000000000aa';
const A = 'worker-01jf00000000000000000000bb';
const B = 'worker-01jf00000000000000000000cc';
const A1 = 'worker-01jf00000000000000000000dd';

const user = makeSigner('me');
const trust = {
  userPublicKey: publicPemOf(user.signer.privateKey),
  audience: audienceOf('/p', user.signer.fingerprint),
};
const caps = ['rye.execute.tool.t/*'].map((c) => parseCapability(c));

/** A root, two children A and B (blocks by the root's key) and A's child A1. */
function family() {
  const keys = { root: newHolderKey(), a: newHolderKey(), b: newHolderKey(), a1: newHolderKey() };
  const nbf = NOW_MS / 1000 - 10;
  const root = mintToken({
    signer: user.signer,
    tree: ROOT,
    thread: ROOT,
    aud: trust.audience,
    caps,
    nbf,
    jti: 'f'.repeat(32),
    holderPublicKey: keys.root.publicKey,
  });
  const child = (
    parent: string,
    holder: typeof keys.root,
    thread: string,
    jti: string,
    own: typeof keys.root,
  ) => appendTokenBlock(parent, { holder, thread, caps, nbf, jti, holderPublicKey: own.publicKey });
  const a = child(root, keys.root, A, 'a'.repeat(32), keys.a);
  const b = child(root, keys.root, B, 'b'.repeat(32), keys.b);
  const a1 = child(a, keys.a, A1, 'c'.repeat(32), keys.a1);
  // Each as its holder presents it: sealed by its own key for this audience.
  const seal = (chain: string, key: typeof keys.root) => sealToken(chain, key, trust.audience);
  return {
    root: seal(root, keys.root),
    a: seal(a, keys.a),
    b: seal(b, keys.b),
    a1: seal(a1, keys.a1),
    bare: { root, a, a1 },
  };
}

/** The chain of a token's first `n` blocks, re-encoded as an attacker would (canonical). */
function firstBlocks(token: string, n: number): string {
  const payload = token.slice('rye-cap-v1.'.length).split('.')[0] ?? '';
  const doc = JSON.parse(Buffer.from(payload, 'base64url').toString('latin1')) as {
    blocks: unknown[];
  };
  const cut = JSON.stringify({ blocks: doc.blocks.slice(0, n) });
  return `rye-cap-v1.${Buffer.from(cut, 'latin1').toString('base64url')}`;
}

const running =
  (rows: Record<string, [string, string]>) =>
  (jti: string): JtiHolder | undefined => {
    const row = rows[jti];
    return row === undefined ? undefined : { threadId: row[0], status: row[1] };
  };

const registry = running({
  ['f'.repeat(32)]: [ROOT, 'running'],
  ['a'.repeat(32)]: [A, 'running'],
  ['b'.repeat(32)]: [B, 'running'],
  ['c'.repeat(32)]: [A1, 'running'],
});

describe('verifyPresented()', () => {
  it('accepts a running thread presenting its own current token', () => {
    const t = family();
    expect(verifyPresented(t.a1, trust, registry, NOW_MS, A1)).toMatchObject({
      thread: A1,
      depth: 2,
    });
  });

  it("refuses the parent's chain cut from a child's token while the parent runs (no seal by the parent's key)", () => {
    const t = family();
    // What A1's presentation holds: A's chain is its prefix, and A is running.
    const cut = firstBlocks(t.a1, 2);
    expect(cut).toBe(t.bare.a);
    expect(thrown(() => verifyPresented(cut, trust, registry, NOW_MS)).details).toMatchObject({
      reason: 'unsealed',
    });
    const reSealed = `${cut}.${t.a1.split('.')[2] ?? ''}`;
    expect(thrown(() => verifyPresented(reSealed, trust, registry, NOW_MS)).details).toMatchObject({
      reason: 'bad_seal',
    });
    expect(
      thrown(() => verifyPresented(t.bare.a1, trust, registry, NOW_MS, A1)).details,
    ).toMatchObject({ reason: 'unsealed' });
  });

  it("refuses a grandchild's token presented by a sibling of its parent (jti_mismatch)", () => {
    const t = family();
    expect(thrown(() => verifyPresented(t.a1, trust, registry, NOW_MS, B)).details).toMatchObject({
      reason: 'jti_mismatch',
    });
  });

  it("refuses a finished thread's token, replayed (jti_finished)", () => {
    const t = family();
    const done = running({ ['c'.repeat(32)]: [A1, 'completed'] });
    expect(thrown(() => verifyPresented(t.a1, trust, done, NOW_MS)).details).toMatchObject({
      reason: 'jti_finished',
    });
    const cancelled = running({ ['c'.repeat(32)]: [A1, 'cancelled'] });
    expect(thrown(() => verifyPresented(t.a1, trust, cancelled, NOW_MS)).code).toBe(
      'CAPABILITY_TOKEN_INVALID',
    );
  });

  it('refuses a jti the registry holds for another thread, and an unknown or rotated jti', () => {
    const t = family();
    const crossed = running({ ['c'.repeat(32)]: [B, 'running'] });
    expect(thrown(() => verifyPresented(t.a1, trust, crossed, NOW_MS)).details).toMatchObject({
      reason: 'jti_mismatch',
    });
    expect(
      thrown(() => verifyPresented(t.b, trust, () => undefined, NOW_MS)).details,
    ).toMatchObject({
      reason: 'jti_unknown',
    });
  });

  it('the per-process cache of verified prefixes never vouches for a block swapped in before a verified one', () => {
    const t = family();
    verifyPresented(t.a1, trust, registry, NOW_MS, A1);
    // Block 0 re-signed by nobody: the later blocks are unchanged (their digests cached).
    const doc = JSON.parse(
      Buffer.from(t.bare.a1.slice('rye-cap-v1.'.length), 'base64url').toString('latin1'),
    ) as {
      blocks: { body: Record<string, unknown> }[];
    };
    (doc.blocks[0] as { body: Record<string, unknown> }).body['caps'] = ['rye.execute.tool.*'];
    const forged = `rye-cap-v1.${Buffer.from(JSON.stringify(doc), 'latin1').toString('base64url')}`;
    expect(
      thrown(() => verifyPresented(forged, trust, registry, NOW_MS, A1)).details,
    ).toMatchObject({
      reason: 'bad_signature',
      block: 0,
    });
  });
});
