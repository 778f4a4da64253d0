import { parsePublicKey, sha256Hex } from '../integrity/index.js';
import { capSetCovers, compileCaps, type CapSet } from './cap-set.js';
import { holderKeyObject } from './holder-key.js';
import type { TokenBody } from './token-body.js';
import { decodeToken, splitToken, type DecodedBlock } from './token-codec.js';
import { tokenInvalid } from './token-error.js';
import { checkSeal } from './token-seal.js';
import { bodySignatureValid } from './token-sign.js';

/** Verified chain prefixes kept per process (THREADS.md §17: a thread presents its token per operation). */
const MAX_VERIFIED_PREFIXES = 4096;
const verifiedPrefixes = new Map<string, CapSet>();

function rememberPrefix(key: string, caps: CapSet): void {
  if (verifiedPrefixes.size >= MAX_VERIFIED_PREFIXES) {
    const oldest = verifiedPrefixes.keys().next().value;
    if (oldest !== undefined) verifiedPrefixes.delete(oldest);
  }
  verifiedPrefixes.set(key, caps);
}

/** Forget every verified prefix (benchmarks measure a cold chain with it). */
export function clearVerifiedPrefixes(): void {
  verifiedPrefixes.clear();
}

/** Clock skew tolerated before `nbf`, in seconds. */
export const TOKEN_CLOCK_SKEW_S = 5;

/** What the thread registry says about a `jti`. */
export type JtiState = 'running' | 'ceiling' | 'unknown' | 'finished';

/** The trust material and facts a verifier loaded first. */
export interface VerifyTokenOptions {
  /** The local user's own public key (SPKI PEM): the only key that mints authority. */
  readonly userPublicKey: string;
  /** `audienceOf(realpath(project), user fingerprint)` of the verifying process. */
  readonly audience: string;
  /** Unix seconds. */
  readonly now: number;
  /** Registry state of the last block's `jti`. */
  readonly lookupJti: (jti: string) => JtiState;
}

/** A token that passed every check; its authority is the last block's caps. */
export interface VerifiedToken {
  readonly caps: CapSet;
  readonly tree: string;
  readonly thread: string | null;
  readonly depth: number;
  readonly jti: string;
  readonly nbf: number;
  readonly exp: number;
  readonly holderPk: string | null;
  readonly blocks: number;
}

/**
 * Verify a sealed `rye-cap-v1` token (docs/capabilities.md, checks 1–7), in
 * order: size, prefix and block count; block 0 signed by the local user's key
 * (other trusted keys author items, they never mint authority); each later
 * block signed by the previous `holder_pk` with a matching `prev`; `tree` and
 * `aud` constant, `depth` +1, caps covered by the previous block's, `exp`
 * never growing and `nbf` never shrinking; `nbf − 5 s ≤ now < exp` and `aud`
 * the verifier's own; the seal made by the last block's holder over this
 * chain and the verifier's audience (so neither a bare chain nor any prefix
 * of one verifies: only the holder of a chain's last block can present it);
 * the registry holding the last `jti` as a running thread's (or an unrevoked
 * ceiling's, for a root-only ceiling token). Pure over the options
 * (`lookupJti` is the one outside fact).
 *
 * @throws RyeError CAPABILITY_TOKEN_INVALID with `details.reason` (TokenRefusal).
 */
export function verifyToken(token: string, options: VerifyTokenOptions): VerifiedToken {
  const { chain, seal } = splitToken(token);
  const blocks = decodeToken(chain);
  const root = blocks[0] as DecodedBlock;
  const user = parsePublicKey(options.userPublicKey);
  // The longest prefix this process already verified under this user key:
  // each block's `prev` binds everything before it, so a verified block's
  // digest stands for its whole prefix (its signatures, links and caps).
  // A hit counts only where every `prev` up to it matches the blocks present.
  const digests = blocks.map((b) => sha256Hex(b.blockText));
  let linked = 0;
  while (linked + 1 < blocks.length && blocks[linked + 1]?.body.prev === digests[linked])
    linked += 1;
  let from = linked;
  let caps: CapSet | undefined;
  for (; from >= 0 && caps === undefined; from--)
    caps = verifiedPrefixes.get(`${user.fingerprint}:${digests[from]}`);
  from += 1;
  if (caps === undefined) {
    if (root.fp !== user.fingerprint)
      throw tokenInvalid('wrong_signer', 'block 0 is not signed by the local user key', 0);
    if (!bodySignatureValid(user.key, root.bodyText, root.sig))
      throw tokenInvalid('bad_signature', 'the signature does not verify with the user key', 0);
    if (root.body.prev !== null) throw tokenInvalid('chain_broken', 'block 0 has a "prev"', 0);
    caps = compileCaps(root.capabilities);
    from = 0;
    rememberPrefix(`${user.fingerprint}:${digests[0]}`, caps);
  }
  for (let i = from + 1; i < blocks.length; i++) {
    caps = checkLink(blocks[i - 1] as DecodedBlock, blocks[i] as DecodedBlock, caps, i, blocks);
    rememberPrefix(`${user.fingerprint}:${digests[i]}`, caps);
  }
  const last = (blocks[blocks.length - 1] as DecodedBlock).body;
  // A NaN clock would pass both comparisons below: fail closed instead.
  if (!Number.isFinite(options.now))
    throw tokenInvalid('expired', 'the verifier gave no valid current time');
  if (options.now < last.nbf - TOKEN_CLOCK_SKEW_S)
    throw tokenInvalid('not_yet_valid', `it is not valid before ${last.nbf}`);
  if (options.now >= last.exp) throw tokenInvalid('expired', `it expired at ${last.exp}`);
  if (root.body.aud !== options.audience)
    throw tokenInvalid('wrong_audience', 'it was minted for another project or user');
  // Per presentation, never cached: the prefix cache above vouches for chains, not presenters.
  checkSeal(chain, seal, blocks[blocks.length - 1] as DecodedBlock, options.audience);
  checkJti(last, options.lookupJti(last.jti));
  return {
    caps,
    tree: last.tree,
    thread: last.thread,
    depth: last.depth,
    jti: last.jti,
    nbf: last.nbf,
    exp: last.exp,
    holderPk: last.holder_pk,
    blocks: blocks.length,
  };
}

/**
 * Check block `next` against the block before it (checks 3 and 4) and return
 * its compiled caps. Used by verification and before appending a block.
 *
 * @throws RyeError CAPABILITY_TOKEN_INVALID
 */
export function checkLink(
  before: DecodedBlock,
  next: DecodedBlock,
  beforeCaps: CapSet,
  index: number,
  earlier: readonly DecodedBlock[] = [before],
): CapSet {
  const a = before.body;
  const b = next.body;
  if (a.holder_pk === null)
    throw tokenInvalid('chain_broken', 'the block before names no holder key', index);
  const holder = holderKeyObject(a.holder_pk);
  if (holder === undefined)
    throw tokenInvalid('malformed', 'the block before has an unusable holder key', index);
  if (!bodySignatureValid(holder, next.bodyText, next.sig))
    throw tokenInvalid(
      'bad_signature',
      "the signature does not verify with the holder's key",
      index,
    );
  if (b.prev !== sha256Hex(before.blockText))
    throw tokenInvalid('chain_broken', '"prev" is not the hash of the block before', index);
  if (b.tree !== a.tree) throw tokenInvalid('tree_changed', '"tree" changed', index);
  if (b.aud !== a.aud) throw tokenInvalid('aud_changed', '"aud" changed', index);
  if (b.depth !== a.depth + 1)
    throw tokenInvalid('depth_mismatch', `"depth" is ${b.depth}, not ${a.depth + 1}`, index);
  if (b.thread === null || earlier.some((blk, i) => i < index && blk.body.thread === b.thread))
    throw tokenInvalid('thread_reused', 'the block does not name a new holder thread', index);
  if (!next.capabilities.every((c) => capSetCovers(beforeCaps, c)))
    throw tokenInvalid('caps_widened', 'its caps are not covered by the block before', index);
  if (b.exp > a.exp) throw tokenInvalid('exp_extended', '"exp" grew', index);
  if (b.nbf < a.nbf) throw tokenInvalid('nbf_earlier', '"nbf" moved earlier', index);
  return compileCaps(next.capabilities);
}

function checkJti(last: TokenBody, state: JtiState): void {
  if (state === 'finished')
    throw tokenInvalid('jti_finished', 'its thread has finished (a replay)');
  if (state === 'running' && last.thread !== null) return;
  if (state === 'ceiling' && last.thread === null) return;
  if (state === 'running' || state === 'ceiling')
    throw tokenInvalid('jti_mismatch', `the registry holds its jti as a ${state}, not this kind`);
  throw tokenInvalid('jti_unknown', 'the registry does not hold its jti as current');
}
