import {
  TrustedCache,
  type Coverage,
  type TrustSet,
  type VerifySubject,
} from '../integrity/index.js';

/** A successful load verification: what a hit restores, and the key that must still be trusted. */
export interface LoadCacheEntry {
  readonly contentHash: string;
  readonly fingerprint: string;
  readonly publicKeyPem: string;
  readonly coverage: Coverage | null;
}

/**
 * Successful item verifications keyed by (real path, extension, SHA-256 of the
 * raw bytes), like the executor's VerifiedFileCache, plus the coverage a load
 * must check. A hit counts only while the signing key is still trusted with
 * the same public key and its scope covers the item; failures are never cached.
 */
export class LoadCache extends TrustedCache<LoadCacheEntry> {
  constructor(maxEntries = 10_000) {
    super(maxEntries);
  }

  /** The cached success for `key`, still valid under `trust` for `subject`, else undefined. */
  lookup(key: string, trust: TrustSet, subject: VerifySubject): LoadCacheEntry | undefined {
    return this.find(key, trust, subject);
  }
}

/** The process-wide cache `loadItem` uses unless given its own. */
export const DEFAULT_LOAD_CACHE = new LoadCache();
