import { RyeError } from '../../errors/index.js';
import type { RegistryStore, TokenRecord } from './store/index.js';

/** The quota settings (a subset of RegistryLimits). */
export interface QuotaLimits {
  /** Stored bytes per account: published versions plus its unpublished uploads (default 1 GiB). */
  readonly accountBytes: number;
  /** Pushes and blob uploads one account may have in progress at once (default 8). */
  readonly uploadsPerAccount: number;
  /** Request bytes the whole server holds for uploads in progress (default 512 MiB). */
  readonly uploadBytesInFlight: number;
}

/**
 * An unpublished blob is charged at least this much: each is a file (or a
 * row) however few its bytes, so a million one-byte uploads are not free.
 */
export const MIN_BLOB_CHARGE = 4096;

/**
 * What attestation adds to a pushed file, claimed with it: the provenance
 * suffix `|rye-registry@<namespace>` (namespaces are at most 1024 characters).
 */
export const PROVENANCE_ALLOWANCE = 64 + 1024;

/** Undo a hold, a claim or a slot; calling it twice does nothing. */
export type Release = () => void;

/**
 * Per-account quotas, kept cheap: every check runs before the body is read or
 * parsed. Published bytes come from the store (`namespaceBytes`, one query);
 * uploads in progress, claims and unpublished blobs are counted here, in this
 * process. So a restart forgets unpublished blobs (they stay stored, uncharged)
 * and instances sharing a PostgreSQL database count their own uploads only.
 */
export class AccountQuotas {
  private readonly slots = new Map<number, number>();
  private readonly claimed = new Map<number, number>();
  /** Per account: unpublished blobs (address → charge) and their running sum. */
  private readonly pending = new Map<number, { blobs: Map<string, number>; bytes: number }>();
  private heldBytes = 0;

  constructor(
    private readonly store: RegistryStore,
    private readonly limits: QuotaLimits,
  ) {}

  /**
   * Take one of the account's upload slots until the release.
   * @throws RyeError REGISTRY_TOO_MANY_UPLOADS
   */
  enter(token: TokenRecord): Release {
    const id = token.accountId;
    const used = this.slots.get(id) ?? 0;
    if (used >= this.limits.uploadsPerAccount) {
      throw new RyeError(
        'REGISTRY_TOO_MANY_UPLOADS',
        `Cannot accept the upload: account ${token.username} already has ${used} uploads in progress, the most allowed`,
        { limit: this.limits.uploadsPerAccount },
      );
    }
    this.slots.set(id, used + 1);
    return once(() => decrement(this.slots, id, 1));
  }

  /**
   * Hold `bytes` of the server-wide upload budget while a body is read.
   * @throws RyeError REGISTRY_BUSY
   */
  hold(bytes: number): Release {
    if (this.heldBytes + bytes > this.limits.uploadBytesInFlight) {
      throw new RyeError(
        'REGISTRY_BUSY',
        `Cannot accept the upload: the registry is already receiving ${this.heldBytes} bytes, and ${bytes} more would pass its cap of ${this.limits.uploadBytesInFlight}`,
        { limit: this.limits.uploadBytesInFlight },
      );
    }
    this.heldBytes += bytes;
    return once(() => {
      this.heldBytes -= bytes;
    });
  }

  /**
   * Claim room for `bytes` more stored bytes in the account until the release
   * (by then the bytes are published or kept pending, or were never stored).
   * @throws RyeError REGISTRY_QUOTA_EXCEEDED
   */
  async claim(token: TokenRecord, bytes: number, what: string): Promise<Release> {
    const published = await this.store.namespaceBytes(token.username);
    // Synchronous from here on: no other claim interleaves with this one.
    const id = token.accountId;
    const used = published + (this.pending.get(id)?.bytes ?? 0) + (this.claimed.get(id) ?? 0);
    if (used + bytes > this.limits.accountBytes) {
      throw new RyeError(
        'REGISTRY_QUOTA_EXCEEDED',
        `Cannot store ${what}: account ${token.username} uses ${used} of its ${this.limits.accountBytes} bytes, and ${bytes} more would pass the quota`,
        { used, requested: bytes, limit: this.limits.accountBytes },
      );
    }
    this.claimed.set(id, (this.claimed.get(id) ?? 0) + bytes);
    return once(() => decrement(this.claimed, id, bytes));
  }

  /** A blob this account uploaded and that was not stored before: charged until published. */
  keepPending(token: TokenRecord, sha256: string, size: number): void {
    let account = this.pending.get(token.accountId);
    if (account === undefined) {
      account = { blobs: new Map(), bytes: 0 };
      this.pending.set(token.accountId, account);
    }
    if (account.blobs.has(sha256)) return;
    const charge = Math.max(size, MIN_BLOB_CHARGE);
    account.blobs.set(sha256, charge);
    account.bytes += charge;
  }

  /** These blobs are now part of the account's published versions (counted by the store). */
  settle(token: TokenRecord, sha256s: Iterable<string>): void {
    const account = this.pending.get(token.accountId);
    if (account === undefined) return;
    for (const sha256 of sha256s) {
      const charge = account.blobs.get(sha256);
      if (charge === undefined) continue;
      account.blobs.delete(sha256);
      account.bytes -= charge;
    }
    if (account.blobs.size === 0) this.pending.delete(token.accountId);
  }
}

function decrement(counts: Map<number, number>, id: number, by: number): void {
  const left = (counts.get(id) ?? 0) - by;
  if (left > 0) counts.set(id, left);
  else counts.delete(id);
}

function once(release: () => void): Release {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    release();
  };
}
