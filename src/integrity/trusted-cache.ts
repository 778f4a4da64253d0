import { scopesCover, type VerifySubject } from './key-scope.js';
import type { TrustSet } from './trust.js';

/** What a cached success must still be able to name: the key that signed it. */
export interface TrustedEntry {
  readonly fingerprint: string;
  readonly publicKeyPem: string;
}

/**
 * Successful verification results by key. A hit counts only while the signing
 * key is still in the caller's trust set with the same public key and its
 * scope still covers the subject of this lookup (whatever subject the entry
 * was verified for), so removing or narrowing trust takes effect at once.
 * Failures are never cached. Bounded: the least recently used entry goes.
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

  /**
   * The entry for `key` when its signer is still trusted as it was and may
   * vouch for `subject` (null: only an unrestricted signer counts), else undefined.
   */
  protected find(key: string, trust: TrustSet, subject: VerifySubject | null): E | undefined {
    const entry = this.#entries.get(key);
    const signer = entry === undefined ? undefined : trust.get(entry.fingerprint);
    if (
      entry === undefined ||
      signer?.publicKeyPem !== entry.publicKeyPem ||
      !scopesCover(signer.scopes, subject)
    )
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
