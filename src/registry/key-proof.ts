import { randomBytes, type KeyObject } from 'node:crypto';
import { decodeSignature, encodeSignature, signBytes, verifyBytes } from '../integrity/index.js';

/**
 * Proof of possession for author-key registration (issue 11): the registry
 * issues a random, single-use challenge bound to the account; the client signs
 * a message naming the registry, the account, the key and the challenge with
 * the private key of the key it registers; the registry verifies it with the
 * submitted public key before recording the key.
 *
 * The message is domain-separated text, never 64 hex characters: an item
 * signature signs exactly the 64 ASCII hex bytes of a content hash, so a
 * hostile registry cannot pick a "challenge" that turns the proof into a
 * signature over an item of its choosing. The client checks the challenge's
 * shape, and builds the message itself.
 */
export const KEY_PROOF_CONTEXT = 'rye-registry-key-proof:v1';

/** 32 random bytes, base64url without padding. */
export const KEY_CHALLENGE_RE = /^[A-Za-z0-9_-]{43}$/;

/** What a proof binds. */
export interface KeyProofFields {
  /** The registry key's fingerprint (the registry the client pinned). */
  readonly registryFingerprint: string;
  readonly username: string;
  /** Fingerprint of the author key being registered. */
  readonly keyFingerprint: string;
  readonly challenge: string;
}

/** A fresh challenge. */
export function newKeyChallenge(): string {
  return randomBytes(32).toString('base64url');
}

/** The exact bytes signed. Pure. */
export function keyProofMessage(fields: KeyProofFields): Buffer {
  return Buffer.from(
    [
      KEY_PROOF_CONTEXT,
      `registry ${fields.registryFingerprint}`,
      `account ${fields.username}`,
      `key ${fields.keyFingerprint}`,
      `challenge ${fields.challenge}`,
      '',
    ].join('\n'),
    'utf8',
  );
}

/** Sign a proof with the author key's private half: padded base64url. */
export function signKeyProof(privateKey: KeyObject, fields: KeyProofFields): string {
  return encodeSignature(signBytes(privateKey, keyProofMessage(fields)));
}

/** True when `signature` is the author key's signature over the proof; never throws. */
export function keyProofVerifies(
  publicKey: KeyObject,
  fields: KeyProofFields,
  signature: string,
): boolean {
  if (signature.length > 200) return false;
  const bytes = decodeSignature(signature);
  return bytes !== undefined && verifyBytes(publicKey, keyProofMessage(fields), bytes);
}
