/**
 * A token proves its holder (docs/capabilities.md "Seal"): a chain verifies
 * only with a seal by its last block's holder key over the chain and the
 * verifier's audience, so a bare chain, a seal by anyone else, a seal
 * addressed elsewhere and every prefix of a chain cut from a presentation
 * are refused.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { signBytes } from '../../src/integrity/index.js';
import {
  appendTokenBlock,
  audienceOf,
  capStrings,
  mintToken,
  newHolderKey,
  parseCapability,
  sealMessage,
  sealToken,
  splitToken,
  verifyToken,
  type HolderKey,
  type VerifyTokenOptions,
} from '../../src/capabilities/index.js';
import { makeSigner } from '../helpers/keys.js';
import { thrown } from './thrown.js';

const NOW = 1_800_000_000;
const THREADS = [
  'orchestrate-01jf00000000000000000000aa',
  'worker-01jf00000000000000000000bb',
  'tester-01jf00000000000000000000cc',
];
const JTIS = ['a', 'b', 'c'].map((c) => c.repeat(32));
const user = makeSigner('me');
const AUD = audienceOf('/home/me/project', user.signer.fingerprint);
const ELSEWHERE = audienceOf('/home/me/other', user.signer.fingerprint);
const caps = (...list: string[]) => list.map((c) => parseCapability(c));
const CAPS = [
  caps('rye.execute.tool.*', 'rye.load.knowledge.*'),
  caps('rye.execute.tool.web/*'),
  caps('rye.execute.tool.web/scraper'),
];

/** A 3-block chain (root, child, grandchild), each block's bare chain, and each holder key. */
function chain3(aud = AUD): { chains: string[]; keys: HolderKey[] } {
  const keys = [newHolderKey(), newHolderKey(), newHolderKey()];
  const chains = [
    mintToken({
      signer: user.signer,
      tree: THREADS[0] as string,
      thread: THREADS[0] as string,
      aud,
      caps: CAPS[0] as ReturnType<typeof caps>,
      nbf: NOW - 60,
      jti: JTIS[0] as string,
      holderPublicKey: (keys[0] as HolderKey).publicKey,
    }),
  ];
  for (const i of [1, 2])
    chains.push(
      appendTokenBlock(chains[i - 1] as string, {
        holder: keys[i - 1] as HolderKey,
        thread: THREADS[i] as string,
        caps: CAPS[i] as ReturnType<typeof caps>,
        nbf: NOW - 60,
        jti: JTIS[i] as string,
        holderPublicKey: (keys[i] as HolderKey).publicKey,
      }),
    );
  return { chains, keys };
}

/** Every thread of the tree still running: the registry vouches for every jti. */
const options: VerifyTokenOptions = {
  userPublicKey: user.publicKeyPem,
  audience: AUD,
  now: NOW,
  lookupJti: () => 'running',
};

const reason = (token: string, opts: VerifyTokenOptions = options): unknown => {
  const error = thrown(() => verifyToken(token, opts));
  expect(error.code).toBe('CAPABILITY_TOKEN_INVALID');
  return error.details['reason'];
};

/** A seal made by hand with any key, as an attacker holding that key could. */
const forgedSeal = (chain: string, key: HolderKey, audience = AUD): string =>
  `${chain}.${signBytes(key.privateKey, sealMessage(chain, audience)).toString('base64url')}`;

/** The chain of a token's first `n` blocks, re-encoded (canonical), as an attacker would cut it. */
function firstBlocks(token: string, n: number): string {
  const doc = JSON.parse(
    Buffer.from(splitToken(token).chain.slice('rye-cap-v1.'.length), 'base64url').toString(
      'latin1',
    ),
  ) as { blocks: unknown[] };
  const cut = JSON.stringify({ blocks: doc.blocks.slice(0, n) });
  return `rye-cap-v1.${Buffer.from(cut, 'latin1').toString('base64url')}`;
}

describe('sealToken() / verifyToken(): the seal', () => {
  it('a chain sealed by its last holder for the verifier’s audience verifies', () => {
    const { chains, keys } = chain3();
    const presented = sealToken(chains[2] as string, keys[2] as HolderKey, AUD);
    expect(presented.startsWith(`${chains[2]}.`)).toBe(true);
    expect(presented.length - (chains[2] as string).length).toBe(87);
    const v = verifyToken(presented, options);
    expect(v).toMatchObject({ thread: THREADS[2], depth: 2, blocks: 3 });
    expect(capStrings(v.caps)).toEqual(['rye.execute.tool.web/scraper']);
    // Ed25519 is deterministic: the same chain, key and audience, the same seal.
    expect(sealToken(chains[2] as string, keys[2] as HolderKey, AUD)).toBe(presented);
  });

  it('refuses the chain without a seal (unsealed)', () => {
    const { chains } = chain3();
    for (const chain of chains) expect(reason(chain)).toBe('unsealed');
  });

  it('refuses a seal by any key but the last holder’s (bad_seal), and will not make one', () => {
    const { chains, keys } = chain3();
    const chain = chains[2] as string;
    for (const key of [keys[0], keys[1], newHolderKey()] as HolderKey[]) {
      expect(reason(forgedSeal(chain, key))).toBe('bad_seal');
      expect(thrown(() => sealToken(chain, key, AUD)).details['reason']).toBe('wrong_signer');
    }
  });

  it('refuses a seal addressed to another audience (bad_seal), even on a chain for this one', () => {
    const { chains, keys } = chain3();
    const chain = chains[2] as string;
    expect(reason(sealToken(chain, keys[2] as HolderKey, ELSEWHERE))).toBe('bad_seal');
  });

  it('refuses a flipped seal bit, and another spelling of the same seal bytes (malformed)', () => {
    const { chains, keys } = chain3();
    const presented = sealToken(chains[2] as string, keys[2] as HolderKey, AUD);
    const seal = splitToken(presented).seal as string;
    const flipped = seal[10] === 'A' ? 'B' : 'A';
    expect(reason(`${chains[2]}.${seal.slice(0, 10)}${flipped}${seal.slice(11)}`)).toBe('bad_seal');
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const bytes = Buffer.from(seal, 'base64url');
    const aliases = [...alphabet]
      .map((c) => seal.slice(0, -1) + c)
      .filter((alias) => alias !== seal && Buffer.from(alias, 'base64url').equals(bytes));
    expect(aliases.length).toBeGreaterThan(0);
    for (const alias of aliases) expect(reason(`${chains[2]}.${alias}`)).toBe('malformed');
  });

  it('a chain whose last block names no holder can never be presented (unsealed)', () => {
    const { chains, keys } = chain3();
    const closed = appendTokenBlock(chains[2] as string, {
      holder: keys[2] as HolderKey,
      thread: 'leaf-01jf00000000000000000000dd',
      caps: [],
      nbf: NOW,
      holderPublicKey: null,
    });
    expect(reason(forgedSeal(closed, keys[2] as HolderKey))).toBe('unsealed');
  });
});

describe('what an attacker holding a presented token can do with it', () => {
  // The attacker holds the grandchild's whole presentation (chain and seal),
  // and even the grandchild's own key (a compromised holder of the full
  // chain); never the root's or the child's key, which never leave their
  // threads. The threads above are still running (the registry vouches for
  // every jti), so a prefix that verified would grant their wider caps.
  it('replays it as presented to another audience: refused', () => {
    const { chains, keys } = chain3();
    const presented = sealToken(chains[2] as string, keys[2] as HolderKey, AUD);
    expect(reason(presented, { ...options, audience: ELSEWHERE })).toBe('wrong_audience');
    // A chain minted for the other audience, presented here, neither.
    const there = chain3(ELSEWHERE);
    const sealedThere = sealToken(there.chains[2] as string, there.keys[2] as HolderKey, ELSEWHERE);
    expect(reason(sealedThere)).toBe('wrong_audience');
  });

  it('cuts blocks off: every proper prefix is refused, bare, with the seal it had, or re-sealed with the key it holds', () => {
    const { chains, keys } = chain3();
    const presented = sealToken(chains[2] as string, keys[2] as HolderKey, AUD);
    const stolenSeal = splitToken(presented).seal as string;
    for (const n of [1, 2]) {
      const prefix = firstBlocks(presented, n);
      expect(prefix).toBe(chains[n - 1]);
      expect(reason(prefix), `${n} blocks, bare`).toBe('unsealed');
      expect(reason(`${prefix}.${stolenSeal}`), `${n} blocks, its seal`).toBe('bad_seal');
      expect(reason(forgedSeal(prefix, keys[2] as HolderKey)), `${n} blocks, re-sealed`).toBe(
        'bad_seal',
      );
      // Only the prefix's own holder (the attacker lacks that key) could present it.
      expect(verifyToken(sealToken(prefix, keys[n - 1] as HolderKey, AUD), options).blocks).toBe(n);
    }
  });

  it('extends it: a block it appends names a new holder, but it cannot sign for the last one', () => {
    const { chains, keys } = chain3();
    const own = newHolderKey();
    const append = (holder: HolderKey) =>
      appendTokenBlock(chains[2] as string, {
        holder,
        thread: 'leaf-01jf00000000000000000000dd',
        caps: CAPS[2] as ReturnType<typeof caps>,
        nbf: NOW,
        holderPublicKey: own.publicKey,
      });
    expect(thrown(() => append(own)).details['reason']).toBe('wrong_signer');
    // With the grandchild's key (the compromised holder), a longer chain is
    // just attenuation: narrower caps, sealed by the new holder, as a child's.
    const longer = append(keys[2] as HolderKey);
    expect(verifyToken(sealToken(longer, own, AUD), options).blocks).toBe(4);
    expect(reason(longer)).toBe('unsealed');
  });
});

describe('the seal, as a property', () => {
  it('verifies for the audience it was made for and for no other', () => {
    const { chains, keys } = chain3();
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2 }),
        fc.stringMatching(/^[0-9a-f]{64}$/),
        (i, other) => {
          const chain = chains[i] as string;
          const presented = sealToken(chain, keys[i] as HolderKey, AUD);
          expect(verifyToken(presented, options).blocks).toBe(i + 1);
          if (other !== AUD)
            expect(reason(sealToken(chain, keys[i] as HolderKey, other))).toBe('bad_seal');
        },
      ),
      { numRuns: 25 },
    );
  });
});
