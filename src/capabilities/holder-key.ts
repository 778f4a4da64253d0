import type { KeyObject } from 'node:crypto';
import {
  generateKeyPair,
  parsePrivateKey,
  parsePublicKey,
  publicPemOf,
} from '../integrity/index.js';

/**
 * A thread's in-memory key pair: its private half signs the token blocks of
 * the thread's children and never leaves the process (never written, logged
 * or sent); `publicKey` is the `holder_pk` a token block names.
 */
export interface HolderKey {
  readonly privateKey: KeyObject;
  /** Unpadded base64url of the SPKI DER of the public half. */
  readonly publicKey: string;
}

/** An Ed25519 SPKI DER is 44 bytes: 59 unpadded base64url characters. */
export const HOLDER_PK_RE = /^[A-Za-z0-9_-]{59}$/;

/** Generate a fresh holder key pair (through integrity). */
export function newHolderKey(): HolderKey {
  const privateKey = parsePrivateKey(generateKeyPair().privateKeyPem);
  return { privateKey, publicKey: holderPublicKeyOf(privateKey) };
}

/** The `holder_pk` form of a private key's public half. Pure. */
export function holderPublicKeyOf(privateKey: KeyObject): string {
  const base64 = publicPemOf(privateKey)
    .replace(/-----(BEGIN|END) PUBLIC KEY-----/g, '')
    .replace(/\s+/g, '');
  return Buffer.from(base64, 'base64').toString('base64url');
}

/**
 * The public key a `holder_pk` names, or undefined when it is not an Ed25519
 * SPKI in canonical unpadded base64url (parsed keys are cached by integrity).
 */
export function holderKeyObject(holderPk: string): KeyObject | undefined {
  if (!HOLDER_PK_RE.test(holderPk)) return undefined;
  const der = Buffer.from(holderPk, 'base64url');
  if (der.toString('base64url') !== holderPk) return undefined;
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  const pem = `-----BEGIN PUBLIC KEY-----\n${lines.join('\n')}\n-----END PUBLIC KEY-----\n`;
  try {
    return parsePublicKey(pem).key;
  } catch {
    return undefined;
  }
}
