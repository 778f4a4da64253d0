import { join } from 'node:path';
import { isRyeError } from '../errors/index.js';
import {
  PUBLIC_KEY_FILE,
  canonicalPem,
  parsePublicKey,
  trustSetOf,
  verifyText,
  type TrustSet,
  type TrustedKey,
} from '../integrity/index.js';
import { keyDir, type Spaces } from '../items/index.js';
import { readTextFileSync } from '../platform/index.js';

/** A public key file is a few hundred bytes; anything larger is not one. */
const MAX_PUBLIC_KEY_BYTES = 64 * 1024;

/**
 * The user's own public key (`<user>/.ai/keys/public_key.pem`), the key
 * `saveLockfile` signs with, or null when there is none. Only lockfiles this
 * key signed may unlock the verified-deps fast path or pin the newest
 * version of a tool: a key that is merely trusted (a colleague's, a
 * registry author's) never speaks for this user's runs.
 *
 * @throws RyeError KEY_INVALID when the file is not an Ed25519 public key,
 *   FILE_UNREADABLE / FILE_TOO_LARGE / FILE_BINARY when it cannot be read — a
 *   broken key fails closed rather than silently disabling the rollback check.
 */
export function readOwnKey(spaces: Spaces): TrustedKey | null {
  const path = join(keyDir(spaces), PUBLIC_KEY_FILE);
  let pem: string;
  try {
    pem = readTextFileSync(path, MAX_PUBLIC_KEY_BYTES);
  } catch (error) {
    if (isRyeError(error, 'FILE_UNREADABLE') && isAbsent(error.cause)) return null;
    throw error;
  }
  const { fingerprint, publicKeyPem, key } = parsePublicKey(pem);
  return { fingerprint, publicKeyPem, key, owner: 'you', attestation: '', source: path };
}

/** True when the lockfile `text` carries a valid signature by `own` (whatever else is trusted). */
export function signedByOwnKey(text: string, path: string, own: TrustedKey): boolean {
  return verifyText(text, { itemType: 'tool', extension: '.json', trust: trustSetOf([own]), path })
    .ok;
}

/**
 * `own` as a one-key trust set when `trust` trusts that very key, else an
 * empty set: a caller that left the user's key out of its trust set (a
 * restricted run) gets no fast path from the user's lockfiles either.
 */
export function ownTrust(trust: TrustSet, own: TrustedKey | null): TrustSet {
  if (own === null) return new Map();
  const listed = trust.get(own.fingerprint);
  const same =
    listed !== undefined && canonicalPem(listed.publicKeyPem) === canonicalPem(own.publicKeyPem);
  return same ? trustSetOf([listed]) : new Map();
}

function isAbsent(cause: unknown): boolean {
  const code = (cause as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}
