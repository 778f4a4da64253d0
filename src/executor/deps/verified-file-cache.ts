import { TrustedCache, type TrustSet, type VerifySubject } from '../../integrity/index.js';

/** What a cache hit restores, and the key that must still be trusted for it to count. */
export interface CacheEntry {
  readonly contentHash: string;
  readonly fingerprint: string;
  readonly publicKeyPem: string;
}

/**
 * Successful verdicts keyed by (real path, extension, SHA-256 of the raw bytes).
 * A hit skips all signature work, and counts only while the signing key is still
 * in the caller's trust set with the same public key and its scope covers the
 * lookup's subject (removing or narrowing trust takes effect at once; a verdict
 * cached for one item id never serves another id the key is not scoped for).
 * Failures are never cached. Bounded: the least recently used entry goes.
 */
export class VerifiedFileCache extends TrustedCache<CacheEntry> {
  constructor(maxEntries = 10_000) {
    super(maxEntries);
  }

  /** The signed content hash of a cached success still valid under `trust` for `subject`, else undefined. */
  lookup(key: string, trust: TrustSet, subject: VerifySubject | null = null): string | undefined {
    return this.find(key, trust, subject)?.contentHash;
  }

  /** {@link lookup}'s whole entry: the signed content hash and the key that signed it. */
  entry(
    key: string,
    trust: TrustSet,
    subject: VerifySubject | null = null,
  ): CacheEntry | undefined {
    return this.find(key, trust, subject);
  }
}
