import {
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  sign as edSign,
  verify as edVerify,
  type KeyObject,
} from 'node:crypto';
import { RyeError } from '../errors/index.js';
import { sha256Hex } from './hash.js';

/** An Ed25519 key pair as PEM text (PKCS8 private, SPKI public). */
export interface KeyPairPem {
  readonly privateKeyPem: string;
  readonly publicKeyPem: string;
}

/** A parsed public key with its fingerprint, ready for verification. */
export interface PublicKeyInfo {
  readonly fingerprint: string;
  readonly publicKeyPem: string;
  readonly key: KeyObject;
}

/** Generate a fresh Ed25519 key pair. */
export function generateKeyPair(): KeyPairPem {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return {
    privateKeyPem: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
    publicKeyPem: publicKey.export({ format: 'pem', type: 'spki' }).toString(),
  };
}

/**
 * The key fingerprint used in signature lines: the first 16 hex characters of
 * SHA-256 over the SPKI PEM text, final newline included (Python-compatible).
 */
export function fingerprintOf(publicKeyPem: string): string {
  return sha256Hex(canonicalPem(publicKeyPem)).slice(0, 16);
}

/**
 * The PEM exactly as Node (and Python's cryptography) write it: LF line endings,
 * one trailing newline. Fingerprints are computed over this form so that a key
 * pasted with CRLF or without its final newline still gets its real fingerprint.
 */
export function canonicalPem(pem: string): string {
  return pem.replace(/\r\n?/g, '\n').trim() + '\n';
}

const publicKeyCache = new Map<string, PublicKeyInfo>();
/** Keys kept parsed; a long-running registry sees keys from every account, so the cache is bounded. */
const PUBLIC_KEY_CACHE_LIMIT = 4096;

/**
 * Parse an Ed25519 SPKI public key (cached by PEM text).
 * @throws RyeError KEY_INVALID when the PEM is not an Ed25519 public key.
 */
export function parsePublicKey(publicKeyPem: string): PublicKeyInfo {
  const cached = publicKeyCache.get(publicKeyPem);
  if (cached !== undefined) return cached;
  const info = ed25519SpkiOf(publicKeyPem) ?? parsedPublicKey(publicKeyPem);
  if (publicKeyCache.size >= PUBLIC_KEY_CACHE_LIMIT) {
    publicKeyCache.delete(publicKeyCache.keys().next().value as string);
  }
  publicKeyCache.set(publicKeyPem, info);
  return info;
}

/** The DER of an Ed25519 SubjectPublicKeyInfo (RFC 8410) up to its 32-byte key. */
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
/** An SPKI PEM of one base64 line, as Node writes a 44-byte Ed25519 key (any line ending). */
const ONE_LINE_SPKI_PEM =
  /^-----BEGIN PUBLIC KEY-----\r?\n([A-Za-z0-9+/]{59}=)\r?\n-----END PUBLIC KEY-----(?:\r?\n)?$/;

/**
 * The key of a PEM that is exactly an Ed25519 SPKI key in the form Node writes
 * it, without OpenSSL's PEM decoder and encoder (~1 ms on first use, at every
 * command's start): the 32 key bytes are imported as a JWK, and the canonical
 * PEM is the one line of base64 itself, which is what exporting the key would
 * give. Anything else (another layout, another key type, base64 that does not
 * re-encode to itself) is left to {@link parsedPublicKey}, which gives the same
 * result for these inputs (test/integrity/keys.test.ts holds the two together).
 */
function ed25519SpkiOf(publicKeyPem: string): PublicKeyInfo | undefined {
  const base64 = ONE_LINE_SPKI_PEM.exec(publicKeyPem)?.[1];
  if (base64 === undefined) return undefined;
  const der = Buffer.from(base64, 'base64');
  if (
    der.length !== ED25519_SPKI_PREFIX.length + 32 ||
    !der.subarray(0, ED25519_SPKI_PREFIX.length).equals(ED25519_SPKI_PREFIX) ||
    der.toString('base64') !== base64
  )
    return undefined;
  const x = der.subarray(ED25519_SPKI_PREFIX.length).toString('base64url');
  const key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x }, format: 'jwk' });
  const pem = `-----BEGIN PUBLIC KEY-----\n${base64}\n-----END PUBLIC KEY-----\n`;
  return { fingerprint: fingerprintOf(pem), publicKeyPem: pem, key };
}

/** A public key through OpenSSL's PEM decoder, its canonical PEM from the key itself. */
function parsedPublicKey(publicKeyPem: string): PublicKeyInfo {
  let key: KeyObject;
  try {
    key = createPublicKey({ key: publicKeyPem, format: 'pem' });
  } catch (error) {
    throw new RyeError(
      'KEY_INVALID',
      'Cannot read public key: not a PEM public key',
      {},
      { cause: error },
    );
  }
  if (key.asymmetricKeyType !== 'ed25519') {
    throw new RyeError(
      'KEY_INVALID',
      // A key read from PEM is asymmetric: its type is always set.
      `Cannot use public key: expected Ed25519, got ${key.asymmetricKeyType}`,
      { keyType: key.asymmetricKeyType },
    );
  }
  const pem = canonicalPem(key.export({ format: 'pem', type: 'spki' }).toString());
  return { fingerprint: fingerprintOf(pem), publicKeyPem: pem, key };
}

/**
 * Parse an Ed25519 PKCS8 private key.
 * @throws RyeError KEY_INVALID
 */
export function parsePrivateKey(privateKeyPem: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: privateKeyPem, format: 'pem' });
  } catch (error) {
    throw new RyeError(
      'KEY_INVALID',
      'Cannot read private key: not a PEM private key',
      {},
      { cause: error },
    );
  }
  if (key.asymmetricKeyType !== 'ed25519') {
    throw new RyeError(
      'KEY_INVALID',
      `Cannot use private key: expected Ed25519, got ${key.asymmetricKeyType}`,
      { keyType: key.asymmetricKeyType },
    );
  }
  return key;
}

/** The public half of a private key, as SPKI PEM. */
export function publicPemOf(privateKey: KeyObject): string {
  return canonicalPem(
    createPublicKey(privateKey).export({ format: 'pem', type: 'spki' }).toString(),
  );
}

/** Ed25519 signature over raw bytes. */
export function signBytes(privateKey: KeyObject, message: Uint8Array): Buffer {
  return edSign(null, message, privateKey);
}

/** Ed25519 verification over raw bytes; false on any mismatch, never throws on bad input. */
export function verifyBytes(
  publicKey: KeyObject,
  message: Uint8Array,
  signature: Uint8Array,
): boolean {
  if (signature.length !== 64) return false;
  try {
    return edVerify(null, message, publicKey, signature);
  } catch {
    return false;
  }
}

/**
 * {@link verifyBytes} on libuv's thread pool, so concurrent verifications run
 * on every core; false on any mismatch, never rejects on bad input.
 */
export function verifyBytesAsync(
  publicKey: KeyObject,
  message: Uint8Array,
  signature: Uint8Array,
): Promise<boolean> {
  if (signature.length !== 64) return Promise.resolve(false);
  return new Promise((resolve) => {
    try {
      edVerify(null, message, publicKey, signature, (error, ok) => resolve(error === null && ok));
    } catch {
      resolve(false);
    }
  });
}
