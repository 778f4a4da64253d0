import type { KeyObject } from 'node:crypto';
import {
  canonicalJson,
  decodeSignature,
  encodeSignature,
  sha256Hex,
  signBytes,
  verifyBytes,
} from '../integrity/index.js';
import { bodyNode, type TokenBody } from './token-body.js';

/**
 * Sign a block body the way JSON items are signed: Ed25519 over the ASCII hex
 * SHA-256 of its canonical JSON, as padded base64url.
 */
export function signBody(privateKey: KeyObject, body: TokenBody): string {
  return signBodyText(privateKey, canonicalJson(bodyNode(body)));
}

/** {@link signBody} over a body's canonical text. */
export function signBodyText(privateKey: KeyObject, bodyText: string): string {
  const digest = Buffer.from(sha256Hex(bodyText), 'latin1');
  return encodeSignature(signBytes(privateKey, digest));
}

/**
 * True when `sig` is the one canonical encoding of a valid signature over
 * `bodyText` by `publicKey`. Never throws.
 */
export function bodySignatureValid(publicKey: KeyObject, bodyText: string, sig: string): boolean {
  const bytes = decodeSignature(sig);
  if (bytes === undefined || encodeSignature(bytes) !== sig) return false;
  return verifyBytes(publicKey, Buffer.from(sha256Hex(bodyText), 'latin1'), bytes);
}
