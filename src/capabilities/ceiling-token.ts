import { readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { RyeError } from '../errors/index.js';
import { fingerprintOf, type Signer } from '../integrity/index.js';
import { keyDir, type Spaces } from '../items/index.js';
import { newThreadId } from '../ids/index.js';
import { audienceOf } from './audience.js';
import type { CapSet } from './cap-set.js';
import { newHolderKey } from './holder-key.js';
import { readRevocationList } from './revocations.js';
import { decodeToken } from './token-codec.js';
import { sealToken } from './token-seal.js';
import { mintToken, newJti } from './token.js';
import { verifyToken, type VerifiedToken } from './token-verify.js';

/** The longest a ceiling token may live: a year. */
export const MAX_CEILING_TTL_S = 365 * 86_400;

const UNIT_S = { s: 1, m: 60, h: 3600, d: 86_400 } as const;

/**
 * Parse a lifetime such as `90s`, `30m`, `12h`, `7d` into seconds, between
 * 1 s and {@link MAX_CEILING_TTL_S}. Pure.
 *
 * @throws RyeError CAPABILITY_TTL_INVALID
 */
export function parseTtl(text: string): number {
  const match = /^(\d{1,9})([smhd])$/.exec(text.trim());
  const seconds = match === null ? NaN : Number(match[1]) * UNIT_S[match[2] as keyof typeof UNIT_S];
  if (!(seconds >= 1 && seconds <= MAX_CEILING_TTL_S))
    throw new RyeError(
      'CAPABILITY_TTL_INVALID',
      `Cannot use --ttl "${text.slice(0, 40)}": give a number and a unit (s, m, h, d), from 1s to 365d`,
      { ttl: text.slice(0, 40) },
    );
  return seconds;
}

/** A minted ceiling token and what it states (the jti revokes it). */
export interface MintedCeiling {
  readonly token: string;
  readonly jti: string;
  readonly nbf: number;
  readonly exp: number;
}

/**
 * Mint a root-only ceiling token (`thread: null`) for this project and user,
 * signed by the user key (THREADS.md §4, §13), and seal it for this project's
 * audience with a fresh holder key that is then dropped: nobody can extend
 * the token or address it anywhere else. Usable as `rye mcp serve --ceiling
 * <file>` and as `RYE_CAP_TOKEN`, in this project only.
 */
export function mintCeilingToken(options: {
  readonly spaces: Spaces;
  readonly signer: Signer;
  readonly caps: CapSet;
  readonly ttlSeconds: number;
  /** Unix seconds (default: now). */
  readonly now?: number;
}): MintedCeiling {
  const nbf = options.now ?? Math.floor(Date.now() / 1000);
  const exp = nbf + options.ttlSeconds;
  const jti = newJti();
  const aud = audienceOf(realpathSync(options.spaces.project), options.signer.fingerprint);
  // The holder key lives only for the seal: the ceiling is presented as minted.
  const holder = newHolderKey();
  const chain = mintToken({
    signer: options.signer,
    tree: newThreadId('ceiling'),
    thread: null,
    aud,
    caps: options.caps,
    nbf,
    exp,
    jti,
    holderPublicKey: holder.publicKey,
  });
  return { token: sealToken(chain, holder, aud), jti, nbf, exp };
}

/**
 * What every token of this project is verified against (THREADS.md §4): the
 * local user's own public key, read now, and the audience it makes with the
 * project's real path.
 *
 * @throws RyeError CAPABILITY_TOKEN_INVALID (`reason: no_user_key`)
 */
export function localTokenTrust(spaces: Spaces): {
  readonly userPublicKey: string;
  readonly audience: string;
} {
  const publicKeyPath = join(keyDir(spaces), 'public_key.pem');
  let userPublicKey: string;
  try {
    userPublicKey = readFileSync(publicKeyPath, 'utf8');
  } catch {
    throw new RyeError(
      'CAPABILITY_TOKEN_INVALID',
      `Cannot accept the capability token: there is no user key at ${publicKeyPath} to verify it with`,
      { reason: 'no_user_key' },
    );
  }
  return {
    userPublicKey,
    audience: audienceOf(realpathSync(spaces.project), fingerprintOf(userPublicKey)),
  };
}

/** True for a root-only ceiling token (`rye cap mint`: one block naming no thread). Decodes only. */
export function isCeilingToken(token: string): boolean {
  const blocks = decodeToken(token);
  return blocks.length === 1 && blocks[0]?.body.thread === null;
}

/**
 * Verify a root-only ceiling token for this project against the local user's
 * own public key and the revocation list, both read now (a revocation takes
 * effect on the next check). A thread's token is `jti_mismatch`: no running
 * thread vouches for it here. Synchronous: a command's authority is resolved
 * before anything else runs.
 *
 * @throws RyeError CAPABILITY_TOKEN_INVALID (`details.reason`: expired,
 *   bad_signature, jti_finished for a revoked one, no_user_key, …),
 *   MCP_REVOCATIONS_INVALID
 */
export function verifyCeilingToken(
  token: string,
  spaces: Spaces,
  now: number = Math.floor(Date.now() / 1000),
): VerifiedToken {
  const trust = localTokenTrust(spaces);
  const revoked = readRevocationList(spaces);
  return verifyToken(token, {
    ...trust,
    now,
    lookupJti: (jti) => (revoked.has(jti) ? 'finished' : 'ceiling'),
  });
}
