import {
  canonicalJson,
  fingerprintOf,
  publicPemOf,
  sha256Hex,
  type Signer,
} from '../integrity/index.js';
import { systemRandom, type RandomSource } from '../ids/index.js';
import { compileCaps, capStrings, type CapSet } from './cap-set.js';
import type { Capability } from './capability.js';
import type { HolderKey } from './holder-key.js';
import { bodyNode, readBody, type TokenBody } from './token-body.js';
import {
  MAX_TOKEN_BLOCKS,
  MAX_TOKEN_LENGTH,
  SEAL_LENGTH,
  blockTextOf,
  decodeToken,
  encodeToken,
  type DecodedBlock,
  type TokenBlock,
} from './token-codec.js';
import { tokenInvalid } from './token-error.js';
import { signBody } from './token-sign.js';
import { checkLink } from './token-verify.js';

/** Lifetime of a token minted without a deadline (THREADS.md §4), in seconds. */
export const UNLIMITED_TOKEN_TTL_S = 86_400;

/** What the root block states. */
export interface MintTokenOptions {
  /** The local user's key: the only key whose root blocks verify. */
  readonly signer: Signer;
  readonly tree: string;
  /** The holder thread, or `null` for a ceiling token (`rye cap mint`). */
  readonly thread: string | null;
  /** The holder's depth from its trusted record (0 for a root). */
  readonly depth?: number;
  readonly aud: string;
  readonly caps: CapSet | readonly Capability[];
  /** Unix seconds. */
  readonly nbf: number;
  /** Unix seconds; default `nbf + 86400`. */
  readonly exp?: number;
  /** Default: 128 random bits, hex. */
  readonly jti?: string;
  /** The holder's `HolderKey.publicKey`, or `null` when nobody may extend it. */
  readonly holderPublicKey: string | null;
}

/** What an attenuating block states; tree, aud, depth and prev come from the token. */
export interface AppendTokenOptions {
  /** The key pair whose public half the token's last block names. */
  readonly holder: HolderKey;
  readonly thread: string;
  /** Must be covered by the last block's caps (intersect first). */
  readonly caps: CapSet | readonly Capability[];
  /** Unix seconds, not before the last block's. */
  readonly nbf: number;
  /** Unix seconds; default and maximum the last block's. */
  readonly exp?: number;
  readonly jti?: string;
  readonly holderPublicKey: string | null;
}

/**
 * Mint a token's root block, signed by the user key (through integrity): a
 * bare chain, which its holder seals to present (`sealToken`).
 *
 * @throws RyeError CAPABILITY_TOKEN_INVALID (`malformed`) when a field is out of form.
 */
export function mintToken(options: MintTokenOptions): string {
  const body: TokenBody = {
    v: 1,
    tree: options.tree,
    thread: options.thread,
    depth: options.depth ?? 0,
    prev: null,
    aud: options.aud,
    caps: capsField(options.caps),
    nbf: options.nbf,
    exp: options.exp ?? options.nbf + UNLIMITED_TOKEN_TTL_S,
    jti: options.jti ?? newJti(),
    holder_pk: options.holderPublicKey,
  };
  checkBody(body, 0);
  const fp = fingerprintOf(publicPemOf(options.signer.privateKey));
  return sized(encodeToken([{ body, sig: signBody(options.signer.privateKey, body), fp }]));
}

/**
 * Append an attenuating block, signed by the holder of the token's last block
 * (a parent thread minting its child's token), naming the new holder's key:
 * the new holder seals the longer chain to present it. The token's structure
 * is decoded (a seal on it is dropped) and the new block checked against the
 * last one exactly as `verifyToken` will; the earlier signatures are not
 * verified here.
 *
 * @throws RyeError CAPABILITY_TOKEN_INVALID (`wrong_signer` when `holder` is not
 *   the last block's holder; `caps_widened`, `exp_extended`, `nbf_earlier`,
 *   `too_many_blocks`, `too_large`, `malformed`).
 */
export function appendTokenBlock(token: string, options: AppendTokenOptions): string {
  const blocks = decodeToken(token);
  const last = blocks[blocks.length - 1] as DecodedBlock;
  const index = blocks.length;
  if (index >= MAX_TOKEN_BLOCKS)
    throw tokenInvalid('too_many_blocks', `it already has ${MAX_TOKEN_BLOCKS} blocks`, index);
  if (last.body.holder_pk !== options.holder.publicKey)
    throw tokenInvalid('wrong_signer', 'the holder key is not the last block holder', index);
  const body: TokenBody = {
    v: 1,
    tree: last.body.tree,
    thread: options.thread,
    depth: last.body.depth + 1,
    prev: sha256Hex(last.blockText),
    aud: last.body.aud,
    caps: capsField(options.caps),
    nbf: options.nbf,
    exp: options.exp ?? last.body.exp,
    jti: options.jti ?? newJti(),
    holder_pk: options.holderPublicKey,
  };
  checkBody(body, index);
  const block: TokenBlock = { body, sig: signBody(options.holder.privateKey, body) };
  checkLink(last, decoded(block), compileCaps(last.capabilities), index, blocks);
  return sized(encodeToken([...blocks.map(plain), block]));
}

/** 128 random bits as 32 hex characters (a token's `jti`), from `random`. */
export function newJti(random: RandomSource = systemRandom): string {
  return Buffer.from(random(16)).toString('hex');
}

function capsField(caps: CapSet | readonly Capability[]): string[] {
  return capStrings(Array.isArray(caps) ? compileCaps(caps) : (caps as CapSet));
}

/** Round-trip the body through the reader, so a minted token is one verify accepts. */
function checkBody(body: TokenBody, index: number): void {
  readBody(bodyNode(body), index);
  if (body.exp <= body.nbf) throw tokenInvalid('malformed', '"exp" is not after "nbf"', index);
}

function decoded(block: TokenBlock): DecodedBlock {
  const node = bodyNode(block.body);
  const bodyText = canonicalJson(node);
  return {
    ...block,
    capabilities: readBody(node, 0).capabilities,
    bodyText,
    blockText: blockTextOf(bodyText, block.sig, block.fp),
  };
}

function plain(block: DecodedBlock): TokenBlock {
  return { body: block.body, sig: block.sig, ...(block.fp === undefined ? {} : { fp: block.fp }) };
}

/** A bare chain leaves room for its seal (`.` + 86 characters) within the size cap. */
function sized(token: string): string {
  if (token.length + 1 + SEAL_LENGTH > MAX_TOKEN_LENGTH)
    throw tokenInvalid(
      'too_large',
      `sealed, it would be longer than ${MAX_TOKEN_LENGTH} characters`,
    );
  return token;
}
