import {
  createHmac,
  createSecretKey,
  hkdfSync,
  timingSafeEqual,
  type KeyObject,
} from 'node:crypto';

/** Each private key's PKCS#8 bytes, exported once per process: the input of every derivation. */
const seeds = new WeakMap<KeyObject, Buffer>();

/**
 * A 256-bit secret key for one purpose and one subject, derived with
 * HKDF-SHA256 from a private key (salt: the purpose; info: the subject).
 * Whoever holds the private key can derive it again; nobody else can, and
 * one subject's key says nothing about another's.
 */
export function derivedMacKey(privateKey: KeyObject, purpose: string, subject: string): KeyObject {
  let seed = seeds.get(privateKey);
  if (seed === undefined) {
    seed = privateKey.export({ format: 'der', type: 'pkcs8' });
    seeds.set(privateKey, seed);
  }
  return createSecretKey(Buffer.from(hkdfSync('sha256', seed, purpose, subject, 32)));
}

/** Lowercase hex HMAC-SHA256 of the parts, in order, as one message. */
export function macHex(key: KeyObject, ...parts: readonly (string | Uint8Array)[]): string {
  const hmac = createHmac('sha256', key);
  for (const part of parts) hmac.update(part);
  return hmac.digest('hex');
}

/**
 * True when `hex` is the HMAC-SHA256 of the parts, or its first bytes (a
 * truncated tag of at least 128 bits, RFC 2104 §5), compared in constant time.
 */
export function macMatches(
  key: KeyObject,
  hex: string,
  ...parts: readonly (string | Uint8Array)[]
): boolean {
  const hmac = createHmac('sha256', key);
  for (const part of parts) hmac.update(part);
  const expected = hmac.digest();
  const actual = Buffer.from(hex, 'hex');
  if (actual.length < 16 || actual.length > expected.length || actual.length * 2 !== hex.length)
    return false;
  return timingSafeEqual(actual, expected.subarray(0, actual.length));
}
