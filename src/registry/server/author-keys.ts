import { RyeError } from '../../errors/index.js';
import { parsePublicKey, trustSetOf, type TrustSet } from '../../integrity/index.js';
import type { RegistryStore } from './store/index.js';

/** The keys an account may push with, and the ones it removed (named in refusals). */
export interface AccountKeys {
  readonly trust: TrustSet;
  /** Fingerprints the account registered and then removed. */
  readonly removed: readonly string[];
}

/**
 * Authors' registered public keys. A fingerprint names one key for ever (one
 * account per fingerprint; a removed key keeps its row, so the versions it
 * signed are still served), so fingerprint → PEM is cached in memory and a
 * pull never asks the store twice.
 */
export class AuthorKeys {
  private readonly pems = new Map<string, string>();

  constructor(private readonly store: RegistryStore) {}

  /** Record a key just registered or read. */
  remember(fingerprint: string, publicKeyPem: string): void {
    this.pems.set(fingerprint, publicKeyPem);
  }

  /**
   * The PEM of a key registered to `namespace`'s account.
   * @throws RyeError REGISTRY_INTERNAL when a published version names a key that is not registered.
   */
  async pemOf(namespace: string, fingerprint: string): Promise<string> {
    const cached = this.pems.get(fingerprint);
    if (cached !== undefined) return cached;
    const account = await this.store.findAccount(namespace);
    if (account !== null) {
      for (const key of await this.store.listKeys(account.id)) {
        this.remember(key.fingerprint, key.publicKey);
      }
    }
    const found = this.pems.get(fingerprint);
    if (found === undefined) {
      throw new RyeError(
        'REGISTRY_INTERNAL',
        `Cannot serve a version of ${namespace}: its author key ${fingerprint} is not registered`,
        { namespace, fingerprint },
      );
    }
    return found;
  }

  /**
   * The account's active keys as a trust set for verifying its pushes (a
   * removed key signs nothing new), and the fingerprints it removed.
   */
  async keysOf(accountId: number, username: string): Promise<AccountKeys> {
    const keys = await this.store.listKeys(accountId);
    for (const k of keys) this.remember(k.fingerprint, k.publicKey);
    const active = keys.filter((k) => k.removedAt === null);
    return {
      trust: trustSetOf(
        active.map((k) => ({
          ...parsePublicKey(k.publicKey),
          owner: username,
          attestation: '',
          source: null,
        })),
      ),
      removed: keys.filter((k) => k.removedAt !== null).map((k) => k.fingerprint),
    };
  }
}
