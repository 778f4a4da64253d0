import type { TrustSet } from './trust.js';

/**
 * A key found in a project's `.ai/trusted_keys/` that the user has not approved
 * (docs/trust.md): it is NOT in the trust set. It is remembered only so that a
 * refusal can say exactly what to review and run.
 */
export interface PendingKey {
  readonly fingerprint: string;
  readonly owner: string;
  /** The project folder whose trust store holds the key. */
  readonly project: string;
}

// Side table rather than a field on TrustSet: the set stays a plain map of the
// keys that count, and a set built any other way simply has no pending keys.
const pendingBySet = new WeakMap<TrustSet, ReadonlyMap<string, PendingKey>>();

/** Attach pending (unapproved) project keys to a trust set; returns the same set. */
export function withPendingKeys(trust: TrustSet, pending: Iterable<PendingKey>): TrustSet {
  const byFingerprint = new Map<string, PendingKey>();
  for (const key of pending) {
    if (!trust.has(key.fingerprint) && !byFingerprint.has(key.fingerprint))
      byFingerprint.set(key.fingerprint, key);
  }
  if (byFingerprint.size > 0) pendingBySet.set(trust, byFingerprint);
  return trust;
}

/** The unapproved project key with this fingerprint, if the set was loaded with one. */
export function pendingKeyFor(trust: TrustSet, fingerprint: string): PendingKey | undefined {
  return pendingBySet.get(trust)?.get(fingerprint);
}
