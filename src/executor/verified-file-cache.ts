import type { TrustSet } from '../integrity/index.js';

/** What a cache hit restores, and the key that must still be trusted for it to count. */
export interface CacheEntry {
  readonly contentHash: string;
  readonly fingerprint: string;
  readonly publicKeyPem: string;
}

/**
 * Successful verdicts keyed by (real path, extension, SHA-256 of the raw bytes).
 * A hit skips all signature work, and counts only while the signing key is still
 * in the caller's trust set with the same public key (removing trust takes effect
 * at once). Failures are never cached. Bounded: the least recently used entry goes.
 */
export class VerifiedFileCache {
  readonly #entries = new Map<string, CacheEntry>();
  readonly #max: number;

  constructor(maxEntries = 10_000) {
    this.#max = Math.max(1, maxEntries);
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The signed content hash of a cached success still valid under `trust`, else undefined. */
  lookup(key: string, trust: TrustSet): string | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined || trust.get(entry.fingerprint)?.publicKeyPem !== entry.publicKeyPem)
      return undefined;
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry.contentHash;
  }

  remember(key: string, entry: CacheEntry): void {
    this.#entries.delete(key);
    const oldest = this.#entries.size >= this.#max ? this.#entries.keys().next() : undefined;
    if (oldest?.done === false) this.#entries.delete(oldest.value);
    this.#entries.set(key, entry);
  }
}
