import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { promisify } from 'node:util';
import { sha256Hex } from './hash.js';

/**
 * Registry account secrets: scrypt password hashes and API tokens. Only
 * hashes are ever stored; comparisons are constant-time.
 */

const N = 16384;
const R = 8;
const P = 1;
const SALT_BYTES = 16;
const KEY_BYTES = 32;
/** Bounds on parameters read back from a stored hash, so a bad row cannot make scrypt run for ever. */
const MAX_N = 1 << 20;
const MAX_RP = 64;
const B64 = /^[A-Za-z0-9+/]+={0,2}$/;

const scryptAsync = promisify<string, Buffer, number, ScryptOptions, Buffer>(scrypt);

function derive(password: string, salt: Buffer, n: number, r: number, p: number, length: number) {
  return scryptAsync(password.normalize('NFC'), salt, length, {
    N: n,
    r,
    p,
    maxmem: 256 * n * r + 1024 * 1024,
  });
}

/** Hash a password as `scrypt$N$r$p$salt_b64$hash_b64` (N=16384, r=8, p=1, 16-byte salt, 32-byte key). */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, N, R, P, KEY_BYTES);
  return `scrypt$${N}$${R}$${P}$${salt.toString('base64')}$${key.toString('base64')}`;
}

/**
 * True when `password` matches a hash made by {@link hashPassword}; false for
 * a wrong password and for a malformed stored string. Never throws.
 */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  // Six parts, checked above.
  const [, nText, rText, pText, salt, hash] = parts as [
    string,
    string,
    string,
    string,
    string,
    string,
  ];
  const [n, r, p] = [Number(nText), Number(rText), Number(pText)];
  const powerOfTwo = Number.isInteger(n) && n > 1 && n <= MAX_N && (n & (n - 1)) === 0;
  if (!powerOfTwo || !smallInt(r) || !smallInt(p)) return false;
  if (!B64.test(salt) || !B64.test(hash)) return false;
  const expected = Buffer.from(hash, 'base64');
  if (expected.length < 16 || expected.length > 64) return false;
  try {
    const actual = await derive(password, Buffer.from(salt, 'base64'), n, r, p, expected.length);
    return timingSafeEqual(actual, expected);
  } catch {
    return false;
  }
}

function smallInt(value: number): boolean {
  return Number.isInteger(value) && value >= 1 && value <= MAX_RP;
}

/** A new API token: the secret (shown once), its public id, and the hash the registry stores. */
export interface ApiToken {
  /** 16 hex characters; names the token for revocation. */
  readonly tokenId: string;
  /** `rye_` + 32 random bytes as base64url. */
  readonly secret: string;
  /** SHA-256 hex of the secret. */
  readonly hash: string;
}

/** Make a new API token. */
export function newApiToken(): ApiToken {
  const secret = `rye_${randomBytes(32).toString('base64url')}`;
  return { tokenId: randomBytes(8).toString('hex'), secret, hash: apiTokenHash(secret) };
}

/** The stored form of a token secret (SHA-256 hex), for lookup. */
export function apiTokenHash(secret: string): string {
  return sha256Hex(secret);
}
