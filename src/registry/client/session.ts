import type { Spaces } from '../../items/index.js';
import type { PrepareToPin } from '../../lockfile/index.js';
import type { RegistryHttp } from './http.js';
import type { RegistryEndpoint } from './registry-url.js';
import type { PinnedRegistryKey } from './verify-answer.js';

export type Env = Readonly<Record<string, string | undefined>>;

/** The registry key as checked against the pin, and whether this session pinned it. */
export type CheckedRegistryKey = PinnedRegistryKey & { readonly pinnedNow: boolean };

/** The session's one registry key check, made on first need and then reused. */
export interface KeyCheckCache {
  current: Promise<CheckedRegistryKey> | undefined;
}

/**
 * Everything one registry operation needs: where, who (spaces, env), and the
 * transport. Opened by openSession (open-session.ts).
 */
export interface RegistrySession {
  readonly spaces: Spaces;
  readonly endpoint: RegistryEndpoint;
  readonly env: Env;
  /** Every request passes the credential guard (credential-guard.ts) first. */
  readonly http: RegistryHttp;
  readonly keyCheck: KeyCheckCache;
  /**
   * Verifies a pulled tool's chain for its lockfile (the executor's
   * `prepareToPin`, wired by the composition root); absent: a pull pins nothing.
   */
  readonly prepareToPin?: PrepareToPin;
}
