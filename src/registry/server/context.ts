import type { RegistryKey } from './registry-key.js';
import type { AuthorKeys } from './author-keys.js';
import type { AccountQuotas, QuotaLimits } from './quota.js';
import type { RegistryStore, TokenRecord } from './store/index.js';

/** Size caps, in bytes, quotas, and the sign-up / log-in attempt rate. */
export interface RegistryLimits extends QuotaLimits {
  /** An item push's JSON body; other JSON bodies get at most 64 KiB (default 12 MiB). */
  readonly jsonBytes: number;
  /** One `PUT /v1/blobs/:sha256` body (default 64 MiB). */
  readonly blobBytes: number;
  /** One item's `content`, UTF-8 (default MAX_ITEM_BYTES, 8 MiB). */
  readonly itemBytes: number;
  /**
   * One bundle manifest, UTF-8 (default 2 MiB, ~16,000 files). Parsing runs on
   * the request thread at ~30 ms per MiB for the canonical layout, so this
   * cap bounds the longest stall a push can cause.
   */
  readonly manifestBytes: number;
  /** Sign-up and log-in attempts per client address and minute (default 30). */
  readonly authAttemptsPerMinute: number;
}

/** One structured log line. */
export type LogFn = (entry: Record<string, unknown>) => void;

/** What every route handler shares: the store, the key and the settings. */
export interface ServerContext {
  readonly store: RegistryStore;
  readonly key: RegistryKey;
  readonly limits: RegistryLimits;
  readonly authorKeys: AuthorKeys;
  readonly quotas: AccountQuotas;
  readonly now: () => Date;
  readonly log: LogFn;
}

/** Hono's per-request variables. */
export interface RegistryEnv {
  Variables: {
    /** The caller's token, set by `requireToken`. */
    token: TokenRecord;
    /** The error code answered, for the request log. */
    errorCode: string;
  };
}
