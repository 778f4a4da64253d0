import type { KeyObject } from 'node:crypto';
import type { KeyScope } from './key-scope.js';

/** A public key the verifier accepts signatures from. */
export interface TrustedKey {
  readonly fingerprint: string;
  readonly publicKeyPem: string;
  readonly owner: string;
  readonly attestation: string;
  /** Where the key was loaded from (file path), or null for keys built in memory. */
  readonly source: string | null;
  readonly key: KeyObject;
  /**
   * What the key may vouch for: every restriction must cover an item
   * (`scopesCover`). Absent or empty: unrestricted (keys written before scopes).
   */
  readonly scopes?: readonly KeyScope[];
}

/** Trusted keys by fingerprint. Verification is a pure function over this set. */
export type TrustSet = ReadonlyMap<string, TrustedKey>;

/**
 * A trust set from keys; the first key wins on a repeated fingerprint
 * (precedence order) for its owner and source, but the restrictions of every
 * copy apply: a store read first (a cloned project's) can narrow what a key
 * of the user's may sign, never widen it.
 */
export function trustSetOf(keys: Iterable<TrustedKey>): TrustSet {
  const set = new Map<string, TrustedKey>();
  for (const key of keys) {
    const first = set.get(key.fingerprint);
    const scopes = key.scopes ?? [];
    if (first === undefined) set.set(key.fingerprint, key);
    else if (scopes.length > 0)
      set.set(key.fingerprint, { ...first, scopes: [...(first.scopes ?? []), ...scopes] });
  }
  return set;
}
