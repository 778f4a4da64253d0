import type { KeyObject } from 'node:crypto';

/** A public key the verifier accepts signatures from. */
export interface TrustedKey {
  readonly fingerprint: string;
  readonly publicKeyPem: string;
  readonly owner: string;
  readonly attestation: string;
  /** Where the key was loaded from (file path), or null for keys built in memory. */
  readonly source: string | null;
  readonly key: KeyObject;
}

/** Trusted keys by fingerprint. Verification is a pure function over this set. */
export type TrustSet = ReadonlyMap<string, TrustedKey>;

/** A trust set from keys; the first key wins on a repeated fingerprint (precedence order). */
export function trustSetOf(keys: Iterable<TrustedKey>): TrustSet {
  const set = new Map<string, TrustedKey>();
  for (const key of keys) if (!set.has(key.fingerprint)) set.set(key.fingerprint, key);
  return set;
}
