import type { RegistryKey } from './registry-key.js';
import type { AuthorKeys } from './author-keys.js';
import type { RegistryStore, TokenRecord } from './store/index.js';

/** Size caps, in bytes, and the sign-up / log-in attempt rate. */
export interface RegistryLimits {
  /** Any JSON request body (default 12 MiB). */
  readonly jsonBytes: number;
  /** One `PUT /v1/blobs/:sha256` body (default 64 MiB). */
  readonly blobBytes: number;
  /** One item's `content`, UTF-8 (default MAX_ITEM_BYTES, 8 MiB). */
  readonly itemBytes: number;
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
