import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { exitCodeFor } from '../../src/errors/index.js';
import {
  canonicalJson,
  encodeSignature,
  parseJsonAst,
  sha256Hex,
  signBytes,
} from '../../src/integrity/index.js';
import {
  allowed,
  appendTokenBlock,
  audienceOf,
  capStrings,
  mintToken,
  newHolderKey,
  newJti,
  parseCapability,
  redactTokens,
  sealToken,
  verifyToken,
  type HolderKey,
  type JtiState,
  type VerifyTokenOptions,
} from '../../src/capabilities/index.js';
import { makeSigner } from '../helpers/keys.js';
import { thrown } from './thrown.js';

const NOW = 1_800_000_000;
const ROOT = 'build_crud_app-01jf00000000000000000000aa';
const CHILD = 'implement_feature-01jf00000000000000000000bb';
const SIBLING = 'implement_feature-01jf00000000000000000000cc';
const GRANDCHILD = 'run_tests-01jf00000000000000000000dd';

const user = makeSigner('me');
const stranger = makeSigner('other');
const AUD = audienceOf('/home/me/project', user.signer.fingerprint);
const caps = (...list: string[]) => list.map((c) => parseCapability(c));
const ROOT_CAPS = caps(
  'rye.execute.tool.web/*',
  'rye.search.knowledge.*',
  'rye.execute.directive.*',
);

interface Tree {
  readonly root: string;
  readonly child: string;
  readonly grandchild: string;
  readonly rootKey: HolderKey;
  readonly childKey: HolderKey;
  readonly grandchildKey: HolderKey;
  readonly jtis: Record<string, JtiState>;
}

/** A root token, its child's (one block more) and the grandchild's (two more). */
function tree(): Tree {
  const rootKey = newHolderKey();
  const childKey = newHolderKey();
  const grandchildKey = newHolderKey();
  const root = mintToken({
    signer: user.signer,
    tree: ROOT,
    thread: ROOT,
    aud: AUD,
    caps: ROOT_CAPS,
    nbf: NOW - 60,
    exp: NOW + 3600,
    jti: 'a'.repeat(32),
    holderPublicKey: rootKey.publicKey,
  });
  const child = appendTokenBlock(root, {
    holder: rootKey,
    thread: CHILD,
    caps: caps('rye.execute.tool.web/*', 'rye.search.knowledge.*'),
    nbf: NOW - 30,
    exp: NOW + 1800,
    jti: 'b'.repeat(32),
    holderPublicKey: childKey.publicKey,
  });
  const grandchild = appendTokenBlock(child, {
    holder: childKey,
    thread: GRANDCHILD,
    caps: caps('rye.execute.tool.web/scraper'),
    nbf: NOW - 10,
    jti: 'c'.repeat(32),
    holderPublicKey: grandchildKey.publicKey,
  });
  const jtis = {
    ['a'.repeat(32)]: 'running',
    ['b'.repeat(32)]: 'running',
    ['c'.repeat(32)]: 'running',
  } as const;
  return { root, child, grandchild, rootKey, childKey, grandchildKey, jtis: { ...jtis } };
}

/** A chain as its holder presents it: sealed by `key` for the test audience. */
const sealed = (chain: string, key: HolderKey, audience = AUD) => sealToken(chain, key, audience);

function options(t: Tree, over: Partial<VerifyTokenOptions> = {}): VerifyTokenOptions {
  return {
    userPublicKey: user.publicKeyPem,
    audience: AUD,
    now: NOW,
    lookupJti: (jti) => t.jtis[jti] ?? 'unknown',
    ...over,
  };
}

/** The decoded JSON of a token, to tamper with. */
function decode(token: string): { blocks: Record<string, unknown>[] } {
  return JSON.parse(Buffer.from(token.slice('rye-cap-v1.'.length), 'base64url').toString('latin1'));
}

/** Re-encode tampered JSON in canonical form (sorted keys, no spaces), as an attacker would. */
function encode(doc: unknown): string {
  const canonical = (v: unknown): string => {
    if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
    if (v !== null && typeof v === 'object')
      return `{${Object.keys(v)
        .sort()
        .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
        .join(',')}}`;
    return JSON.stringify(v);
  };
  return `rye-cap-v1.${Buffer.from(canonical(doc), 'latin1').toString('base64url')}`;
}

function reason(token: string, opts: VerifyTokenOptions): unknown {
  const error = thrown(() => verifyToken(token, opts));
  expect(error.code).toBe('CAPABILITY_TOKEN_INVALID');
  expect(error.message).not.toMatch(/rye-cap-v1\.[A-Za-z0-9_-]/);
  return error.details['reason'];
}

describe('mintToken() / appendTokenBlock() / verifyToken()', () => {
  it('verifies a 3-block chain and grants the last block caps', () => {
    const t = tree();
    const v = verifyToken(sealed(t.grandchild, t.grandchildKey), options(t));
    expect(capStrings(v.caps)).toEqual(['rye.execute.tool.web/scraper']);
    expect(v).toMatchObject({
      tree: ROOT,
      thread: GRANDCHILD,
      depth: 2,
      jti: 'c'.repeat(32),
      nbf: NOW - 10,
      exp: NOW + 1800,
      holderPk: t.grandchildKey.publicKey,
      blocks: 3,
    });
    expect(allowed(v.caps, 'execute', 'tool', 'web/other')).toBe(false);
    const root = verifyToken(sealed(t.root, t.rootKey), options(t));
    expect(root.depth).toBe(0);
    expect(root.exp).toBe(NOW + 3600);
    expect(allowed(root.caps, 'execute', 'directive', 'x')).toBe(true);
  });

  it('gives an unlimited token nbf + 86400 and a random 128-bit jti', () => {
    const key = newHolderKey();
    const mint = () =>
      mintToken({
        signer: user.signer,
        tree: ROOT,
        thread: ROOT,
        aud: AUD,
        caps: [],
        nbf: NOW,
        holderPublicKey: key.publicKey,
      });
    const [a, b] = [sealed(mint(), key), sealed(mint(), key)];
    const v = verifyToken(a, { ...options(tree()), lookupJti: () => 'running' });
    expect(v.exp).toBe(NOW + 86_400);
    expect(v.jti).toMatch(/^[0-9a-f]{32}$/);
    expect(verifyToken(b, { ...options(tree()), lookupJti: () => 'running' }).jti).not.toBe(v.jti);
  });

  it('accepts a root-only ceiling token (thread null) when the registry holds it as a ceiling', () => {
    const key = newHolderKey();
    const chain = mintToken({
      signer: user.signer,
      tree: ROOT,
      thread: null,
      aud: AUD,
      caps: caps('rye.load.knowledge.*'),
      nbf: NOW,
      jti: 'e'.repeat(32),
      holderPublicKey: key.publicKey,
    });
    const ceiling = sealed(chain, key);
    const v = verifyToken(ceiling, { ...options(tree()), lookupJti: () => 'ceiling' });
    expect(v.thread).toBeNull();
    expect(reason(ceiling, { ...options(tree()), lookupJti: () => 'running' })).toBe(
      'jti_mismatch',
    );
  });

  it('refuses every failure with CAPABILITY_TOKEN_INVALID, exit 3', () => {
    const t = tree();
    const error = thrown(() => verifyToken(`${t.root}x`, options(t)));
    expect(error.code).toBe('CAPABILITY_TOKEN_INVALID');
    expect(exitCodeFor(error.code)).toBe(3);
  });
});

describe('verifyToken() refuses attacks', () => {
  it('a tampered field in any block (the signature no longer verifies)', () => {
    const t = tree();
    const tampers: [number, string, unknown][] = [
      [0, 'caps', ['rye.execute.tool.*']],
      [0, 'exp', NOW + 999_999],
      [0, 'nbf', 0],
      [0, 'depth', 1],
      [0, 'jti', 'f'.repeat(32)],
      [0, 'holder_pk', newHolderKey().publicKey],
      [0, 'thread', SIBLING],
      [1, 'caps', ['rye.execute.tool.web/*', 'rye.search.knowledge.*', 'rye.sign.tool.*']],
      [1, 'exp', NOW + 1801],
      [1, 'jti', 'f'.repeat(32)],
      [1, 'holder_pk', newHolderKey().publicKey],
      [2, 'caps', ['rye.execute.tool.web/*']],
      [2, 'thread', SIBLING],
      [2, 'nbf', NOW - 11],
      [0, 'tree', 'other-01jf00000000000000000000ee'],
      [0, 'aud', 'f'.repeat(64)],
      [1, 'prev', '0'.repeat(64)],
      [1, 'tree', 'other-01jf00000000000000000000ee'],
      [1, 'depth', 5],
      [2, 'aud', 'f'.repeat(64)],
      [2, 'holder_pk', null],
    ];
    for (const [block, field, value] of tampers) {
      const doc = decode(t.grandchild);
      (doc.blocks[block]!['body'] as Record<string, unknown>)[field] = value;
      expect(reason(encode(doc), options(t)), `${block}.${field}`).toBe('bad_signature');
    }
    const version = decode(t.child);
    (version.blocks[0]!['body'] as Record<string, unknown>)['v'] = 2;
    expect(reason(encode(version), options(t))).toBe('malformed');
  });

  it('a tampered signature, fingerprint or prev', () => {
    const t = tree();
    const sig = decode(t.child);
    const s = sig.blocks[1]!['sig'] as string;
    sig.blocks[1]!['sig'] = (s[0] === 'A' ? 'B' : 'A') + s.slice(1);
    expect(reason(encode(sig), options(t))).toBe('bad_signature');
    const fp = decode(t.child);
    fp.blocks[0]!['fp'] = stranger.signer.fingerprint;
    expect(reason(encode(fp), options(t))).toBe('wrong_signer');
  });

  it('a root block signed by another trusted key (only the local user key mints authority)', () => {
    const t = tree();
    const foreign = mintToken({
      signer: stranger.signer,
      tree: ROOT,
      thread: ROOT,
      aud: AUD,
      caps: ROOT_CAPS,
      nbf: NOW,
      jti: 'a'.repeat(32),
      holderPublicKey: t.rootKey.publicKey,
    });
    expect(reason(foreign, options(t))).toBe('wrong_signer');
    // The stranger's signature under the user's fingerprint still fails.
    const spoof = decode(foreign);
    spoof.blocks[0]!['fp'] = user.signer.fingerprint;
    expect(reason(encode(spoof), options(t))).toBe('bad_signature');
  });

  it('a block signed by a key other than the previous holder (a child posing as its parent)', () => {
    const t = tree();
    // The child signs a block onto the root token with its own key: refused at append…
    expect(
      thrown(() =>
        appendTokenBlock(t.root, {
          holder: t.childKey,
          thread: SIBLING,
          caps: [],
          nbf: NOW,
          holderPublicKey: null,
        }),
      ).details['reason'],
    ).toBe('wrong_signer');
    // …and a hand-made one is refused at verification.
    const forged = decode(t.grandchild);
    const other = decode(
      appendTokenBlock(t.child, {
        holder: t.childKey,
        thread: GRANDCHILD,
        caps: caps('rye.execute.tool.web/scraper'),
        nbf: NOW - 10,
        jti: 'c'.repeat(32),
        holderPublicKey: t.grandchildKey.publicKey,
      }),
    );
    forged.blocks[1] = other.blocks[2]!; // a block signed by the child where the root's holder must sign
    forged.blocks.length = 2;
    expect(reason(encode(forged), options(t))).toBe('bad_signature');
  });

  it("a sibling's block spliced into the chain", () => {
    const t = tree();
    const siblingKey = newHolderKey();
    const sibling = appendTokenBlock(t.root, {
      holder: t.rootKey,
      thread: SIBLING,
      caps: caps('rye.execute.tool.web/*'),
      nbf: NOW - 30,
      jti: 'd'.repeat(32),
      holderPublicKey: siblingKey.publicKey,
    });
    const sib = decode(sibling);
    // root + child + the sibling's block: signed by the root holder, but prev is the root's hash
    const spliced = decode(t.child);
    spliced.blocks.push(sib.blocks[1]!);
    expect(reason(encode(spliced), options(t))).toBe('bad_signature');
    // the sibling's block in place of the child's, followed by the grandchild's
    const swapped = decode(t.grandchild);
    swapped.blocks[1] = sib.blocks[1]!;
    expect(reason(encode(swapped), options(t))).toBe('bad_signature');
    // a grandchild block signed by the sibling's key onto the child's token
    const foreignKid = appendTokenBlock(sibling, {
      holder: siblingKey,
      thread: GRANDCHILD,
      caps: caps('rye.execute.tool.web/x'),
      nbf: NOW - 10,
      holderPublicKey: null,
    });
    const mixed = decode(t.child);
    mixed.blocks.push(decode(foreignKid).blocks[2]!);
    expect(reason(encode(mixed), options(t))).toBe('bad_signature');
  });

  it('a block whose prev names another block, with a valid signature', () => {
    const t = tree();
    // The root holder signs a block whose prev is wrong: only prev can catch it.
    const doc = decode(t.child);
    const other = decode(
      appendTokenBlock(
        mintToken({
          signer: user.signer,
          tree: ROOT,
          thread: ROOT,
          aud: AUD,
          caps: ROOT_CAPS,
          nbf: NOW - 60,
          exp: NOW + 3600,
          jti: '9'.repeat(32),
          holderPublicKey: t.rootKey.publicKey,
        }),
        {
          holder: t.rootKey,
          thread: CHILD,
          caps: caps('rye.execute.tool.web/*'),
          nbf: NOW - 30,
          holderPublicKey: null,
        },
      ),
    );
    doc.blocks[1] = other.blocks[1]!;
    expect(reason(encode(doc), options(t))).toBe('chain_broken');
  });

  it('re-ordered and dropped blocks', () => {
    const t = tree();
    const doc = decode(t.grandchild);
    const reordered = { blocks: [doc.blocks[0]!, doc.blocks[2]!, doc.blocks[1]!] };
    expect(reason(encode(reordered), options(t))).toBe('bad_signature');
    const rootLast = { blocks: [doc.blocks[1]!, doc.blocks[0]!] };
    expect(reason(encode(rootLast), options(t))).toBe('malformed');
    const skipped = { blocks: [doc.blocks[0]!, doc.blocks[2]!] };
    expect(reason(encode(skipped), options(t))).toBe('bad_signature');
  });

  it('widened caps, a grown exp, an earlier nbf, a wrong depth, a changed tree or aud, a reused thread', () => {
    const t = tree();
    const cases: [Record<string, unknown>, string][] = [
      [{ caps: caps('rye.execute.tool.*') }, 'caps_widened'],
      [{ caps: caps('rye.sign.tool.web/x') }, 'caps_widened'],
      [{ exp: NOW + 3601 }, 'exp_extended'],
      [{ nbf: NOW - 61 }, 'nbf_earlier'],
      [{ thread: ROOT }, 'thread_reused'],
    ];
    for (const [over, why] of cases) {
      const error = thrown(() =>
        appendTokenBlock(t.root, {
          holder: t.rootKey,
          thread: CHILD,
          caps: caps('rye.execute.tool.web/x'),
          nbf: NOW - 30,
          holderPublicKey: null,
          ...over,
        }),
      );
      expect(error.details['reason'], why).toBe(why);
    }
    // Depth, tree and aud come from the token at append; a holder signing a
    // hand-made body gets them checked at verification.
    for (const [field, value, why] of [
      ['depth', 2, 'depth_mismatch'],
      ['tree', 'other-01jf00000000000000000000ee', 'tree_changed'],
      ['aud', 'f'.repeat(64), 'aud_changed'],
    ] as const) {
      const forged = forgeChild(t, { [field]: value });
      expect(reason(forged, options(t)), field).toBe(why);
    }
  });

  it('a token outside its time window (5 s skew before nbf)', () => {
    const t = tree();
    const grandchild = sealed(t.grandchild, t.grandchildKey);
    const child = sealed(t.child, t.childKey);
    expect(verifyToken(grandchild, options(t, { now: NOW - 15 })).depth).toBe(2);
    expect(reason(grandchild, options(t, { now: NOW - 16 }))).toBe('not_yet_valid');
    expect(verifyToken(grandchild, options(t, { now: NOW + 1799 })).depth).toBe(2);
    expect(reason(grandchild, options(t, { now: NOW + 1800 }))).toBe('expired');
    // the root's longer window does not save a child past its own exp
    expect(verifyToken(sealed(t.root, t.rootKey), options(t, { now: NOW + 3000 })).depth).toBe(0);
    expect(reason(child, options(t, { now: NOW + 3000 }))).toBe('expired');
    expect(reason(child, options(t, { now: Number.NaN }))).toBe('expired');
  });

  it('a foreign audience: another project or another user', () => {
    const t = tree();
    const otherProject = audienceOf('/home/me/other', user.signer.fingerprint);
    const otherUser = audienceOf('/home/me/project', stranger.signer.fingerprint);
    // Sealed for each verifier's own audience, the chain's aud still refuses it.
    for (const audience of [otherProject, otherUser])
      expect(reason(sealed(t.child, t.childKey, audience), options(t, { audience }))).toBe(
        'wrong_audience',
      );
  });

  it("replays: a finished thread's jti, an unknown jti, a parent's token after the child's", () => {
    const t = tree();
    const grandchild = sealed(t.grandchild, t.grandchildKey);
    t.jtis['c'.repeat(32)] = 'finished';
    expect(reason(grandchild, options(t))).toBe('jti_finished');
    t.jtis['c'.repeat(32)] = 'unknown';
    expect(reason(grandchild, options(t))).toBe('jti_unknown');
    expect(reason(grandchild, options(t, { lookupJti: () => 'ceiling' }))).toBe('jti_mismatch');
    expect(
      reason(grandchild, options(t, { lookupJti: () => 'bogus' as unknown as JtiState })),
    ).toBe('jti_unknown');
  });

  it('oversize tokens and too many blocks, before any signature work', () => {
    const t = tree();
    expect(reason(`rye-cap-v1.${'A'.repeat(64 * 1024)}`, options(t))).toBe('too_large');
    let token = t.root;
    let key = t.rootKey;
    for (let i = 1; i < 16; i++) {
      const next = newHolderKey();
      token = appendTokenBlock(token, {
        holder: key,
        thread: `t${i}-01jf00000000000000000000ff`,
        caps: caps('rye.execute.tool.web/x'),
        nbf: NOW - 30,
        holderPublicKey: next.publicKey,
      });
      key = next;
    }
    t.jtis[lastJti(token)] = 'running';
    expect(verifyToken(sealed(token, key), options(t)).blocks).toBe(16);
    expect(
      thrown(() =>
        appendTokenBlock(token, {
          holder: key,
          thread: 'last-01jf00000000000000000000ff',
          caps: [],
          nbf: NOW,
          holderPublicKey: null,
        }),
      ).details['reason'],
    ).toBe('too_many_blocks');
    const doc = decode(token);
    doc.blocks.push(doc.blocks[15]!);
    expect(reason(encode(doc), options(t))).toBe('too_many_blocks');
  });

  it('malformed encodings: wrong prefix, padding, stray bits, non-canonical JSON, extra or missing fields', () => {
    const t = tree();
    const doc = decode(t.child);
    const extraField = decode(t.child);
    (extraField.blocks[1]!['body'] as Record<string, unknown>)['admin'] = true;
    const fpOnChild = decode(t.child);
    fpOnChild.blocks[1]!['fp'] = user.signer.fingerprint;
    const floatDepth = JSON.stringify(doc).replace('"depth":1', '"depth":1.0');
    const unsorted = decode(t.child);
    (unsorted.blocks[1]!['body'] as Record<string, unknown>)['caps'] = [
      'rye.search.knowledge.*',
      'rye.execute.tool.web/*',
    ];
    const seal = sealed(t.child, t.childKey).slice(t.child.length);
    const cases: string[] = [
      '',
      'rye-cap-v2.abc',
      `${t.child}${seal}A`,
      `${t.child}${seal}.${seal.slice(1)}`,
      `${t.child}${seal}==`,
      `${t.child}${seal.slice(0, -1)}`,
      `${t.child}.`,
      `rye-cap-v1.${seal}`,
      t.child.replace('rye-cap-v1.', 'RYE-CAP-V1.'),
      `${t.child}=`,
      `${t.child}!`,
      `rye-cap-v1.${Buffer.from(JSON.stringify(doc, null, 1)).toString('base64url')}`,
      `rye-cap-v1.${Buffer.from(floatDepth).toString('base64url')}`,
      encode({ blocks: [] }),
      encode({ blocks: doc.blocks, extra: 1 }),
      encode(extraField),
      encode(fpOnChild),
      encode(unsorted),
      encode({ blocks: [{ ...doc.blocks[0]!, sig: 'x' }] }),
    ];
    for (const token of cases)
      expect(reason(token, options(t)), token.slice(0, 40)).toBe('malformed');
  });

  it('another base64url spelling of the same bytes (stray low bits)', () => {
    const t = tree();
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    let tested = 0;
    for (const token of [t.root, t.child, t.grandchild]) {
      const payload = token.slice('rye-cap-v1.'.length);
      const bytes = Buffer.from(payload, 'base64url');
      for (const c of alphabet) {
        const alias = payload.slice(0, -1) + c;
        if (alias === payload || !Buffer.from(alias, 'base64url').equals(bytes)) continue;
        expect(reason(`rye-cap-v1.${alias}`, options(t))).toBe('malformed');
        tested++;
      }
    }
    expect(tested).toBeGreaterThan(0);
  });
});

describe('newJti()', () => {
  it('is 32 hex characters of 16 random bytes, from the source it is given', () => {
    expect(newJti()).toMatch(/^[0-9a-f]{32}$/);
    expect(newJti()).not.toBe(newJti());
    expect(newJti((n) => Uint8Array.from({ length: n }, (_, i) => i))).toBe(
      '000102030405060708090a0b0c0d0e0f',
    );
  });
});

describe('audienceOf()', () => {
  it('is the hex SHA-256 of the real path, a newline and the fingerprint', () => {
    const expected = createHash('sha256').update('/home/me/project\nabcd').digest('hex');
    expect(audienceOf('/home/me/project', 'abcd')).toBe(expected);
    expect(audienceOf('/home/me/project2', 'abcd')).not.toBe(expected);
  });
});

describe('redactTokens()', () => {
  it('replaces every token in text, idempotently', () => {
    const t = tree();
    const child = sealed(t.child, t.childKey);
    const text = `RYE_CAP_TOKEN=${child} and "${t.root}".\nagain: ${child}`;
    const redacted = redactTokens(text);
    expect(redacted).toBe(
      'RYE_CAP_TOKEN=rye-cap-v1.[redacted] and "rye-cap-v1.[redacted]".\nagain: rye-cap-v1.[redacted]',
    );
    expect(redactTokens(redacted)).toBe(redacted);
    expect(redacted).not.toMatch(/rye-cap-v1\.[A-Za-z0-9_-]/);
    expect(redactTokens('no token here')).toBe('no token here');
  });
});

/** A block signed by the rightful holder (the root's) with one body field forged. */
function forgeChild(t: Tree, over: Record<string, unknown>): string {
  const doc = decode(
    appendTokenBlock(t.root, {
      holder: t.rootKey,
      thread: CHILD,
      caps: caps('rye.execute.tool.web/x'),
      nbf: NOW - 30,
      jti: 'b'.repeat(32),
      holderPublicKey: null,
    }),
  );
  const body = { ...(doc.blocks[1]!['body'] as Record<string, unknown>), ...over };
  doc.blocks[1] = { body, sig: signAs(t.rootKey, body) };
  return encode(doc);
}

/** Sign a hand-made body exactly as the holder's code would (canonical JSON, SHA-256, Ed25519). */
function signAs(key: HolderKey, body: Record<string, unknown>): string {
  const text = canonicalJson(parseJsonAst(JSON.stringify(body), 'test body'));
  const digest = Buffer.from(sha256Hex(text), 'latin1');
  return encodeSignature(signBytes(key.privateKey, digest));
}

function lastJti(token: string): string {
  const blocks = decode(token).blocks;
  return (blocks[blocks.length - 1]!['body'] as { jti: string }).jti;
}
