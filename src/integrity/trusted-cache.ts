import type { TrustSet } from './trust.js';

/** What a cached success must still be able to name: the key that signed it. */
export interface TrustedEntry {
  readonly fingerprint: string;
  readonly publicKeyPem: string;
}

/**
 * Successful verification results by key. A hit counts only while the signing
 * key is still in the caller's trust set with the same public key, so removing
 * trust takes effect at once. Failures are never cached. Bounded: the least
 * recently used entry goes.
 */
export class TrustedCache<E extends TrustedEntry> {
  readonly #entries = new Map<string, E>();
  readonly #max: number;

  constructor(maxEntries: number) {
    this.#max = Math.max(1, maxEntries);
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The entry for `key` when its signer is still trusted as it was, else undefined. */
  protected find(key: string, trust: TrustSet): E | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined || trust.get(entry.fingerprint)?.publicKeyPem !== entry.publicKeyPem)
      return undefined;
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry;
  }

  remember(key: string, entry: E): void {
    this.#entries.delete(key);
    const oldest = this.#entries.size >= this.#max ? this.#entries.keys().next() : undefined;
    if (oldest?.done === false) this.#entries.delete(oldest.value);
    this.#entries.set(key, entry);
  }
}
