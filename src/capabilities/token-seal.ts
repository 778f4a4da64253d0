import { sha256Hex, signBytes, verifyBytes } from '../integrity/index.js';
import type { HolderKey } from './holder-key.js';
import { holderKeyObject } from './holder-key.js';
import { decodeToken, splitToken, type DecodedBlock } from './token-codec.js';
import { tokenInvalid } from './token-error.js';

/**
 * Domain tag of a seal's message: a seal signs nothing but a seal, and a
 * later seal form gets a new tag.
 */
export const SEAL_CONTEXT = 'rye-cap-seal-v1';

/**
 * What a seal signs (docs/capabilities.md "Seal"): the ASCII bytes of
 * `rye-cap-seal-v1\n` + hex SHA-256 of the chain (`rye-cap-v1.` + its
 * payload, exactly as presented) + `\n` + the audience it is addressed to.
 * Pure.
 */
export function sealMessage(chain: string, audience: string): Buffer {
  return Buffer.from(`${SEAL_CONTEXT}\n${sha256Hex(chain)}\n${audience}`, 'latin1');
}

/**
 * Present a chain to `audience`: `chain` + `.` + the seal, an Ed25519
 * signature by the holder of its last block (through integrity), unpadded
 * base64url. A seal already on `token` is replaced. Only the holder of the
 * last block can seal, so a chain cut short (a prefix) cannot be presented by
 * whoever holds the longer one.
 *
 * @throws RyeError CAPABILITY_TOKEN_INVALID (`wrong_signer` when `holder` is
 *   not the last block's holder; `malformed`, `too_large` from decoding)
 */
export function sealToken(token: string, holder: HolderKey, audience: string): string {
  const { chain } = splitToken(token);
  const blocks = decodeToken(chain);
  const last = blocks[blocks.length - 1] as DecodedBlock;
  if (last.body.holder_pk !== holder.publicKey)
    throw tokenInvalid(
      'wrong_signer',
      'the sealing key is not the last block holder',
      blocks.length - 1,
    );
  const seal = signBytes(holder.privateKey, sealMessage(chain, audience)).toString('base64url');
  return `${chain}.${seal}`;
}

/**
 * Check a presented token's seal (check 6): present, and a valid signature by
 * the last block's `holder_pk` over the chain and the verifier's audience.
 *
 * @throws RyeError CAPABILITY_TOKEN_INVALID (`unsealed`, `bad_seal`)
 */
export function checkSeal(
  chain: string,
  seal: string | undefined,
  last: DecodedBlock,
  audience: string,
): void {
  if (seal === undefined)
    throw tokenInvalid(
      'unsealed',
      'it carries no seal by its holder (a bare chain is never presented)',
    );
  if (last.body.holder_pk === null)
    throw tokenInvalid('unsealed', 'its last block names no holder key to seal it');
  const key = holderKeyObject(last.body.holder_pk);
  if (key === undefined)
    throw tokenInvalid('malformed', 'the last block has an unusable holder key');
  if (!verifyBytes(key, sealMessage(chain, audience), Buffer.from(seal, 'base64url')))
    throw tokenInvalid(
      'bad_seal',
      `the seal is not by the last block's holder over this chain and this audience`,
    );
}
