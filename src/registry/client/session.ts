import type { Spaces } from '../../items/index.js';
import type { PrepareToPin } from '../../lockfile/index.js';
import { guardRequest } from './credential-guard.js';
import { RegistryHttp, type FetchFn } from './http.js';
import { resolveRegistryUrl, type RegistryEndpoint } from './registry-url.js';
import type { PinnedRegistryKey } from './verify-answer.js';

export type Env = Readonly<Record<string, string | undefined>>;

/** The registry key as checked against the pin, and whether this session pinned it. */
export type CheckedRegistryKey = PinnedRegistryKey & { readonly pinnedNow: boolean };

/** The session's one registry key check, made on first need and then reused. */
export interface KeyCheckCache {
  current: Promise<CheckedRegistryKey> | undefined;
}

/** Everything one registry operation needs: where, who (spaces, env), and the transport. */
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

export interface SessionOptions {
  readonly spaces: Spaces;
  /** `--registry`; falls back to RYE_REGISTRY_URL, then the default. */
  readonly registry?: string | undefined;
  readonly env?: Env;
  readonly fetch?: FetchFn;
  readonly timeoutMs?: number;
  /** See RegistrySession.prepareToPin. */
  readonly prepareToPin?: PrepareToPin;
}

/**
 * A session with one registry. Its transport refuses to send a token or a
 * password until the registry's key was fetched and matched against the pin
 * (one request per session: a CLI command is one session).
 *
 * @throws RyeError REGISTRY_URL_INVALID
 */
export function openSession(options: SessionOptions): RegistrySession {
  const env = options.env ?? process.env;
  const endpoint = resolveRegistryUrl(options.registry, env);
  const keyCheck: KeyCheckCache = { current: undefined };
  const session: RegistrySession = {
    spaces: options.spaces,
    endpoint,
    env,
    keyCheck,
    ...(options.prepareToPin === undefined ? {} : { prepareToPin: options.prepareToPin }),
    http: new RegistryHttp(endpoint.url, {
      ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      guard: (request) => guardRequest(session, request),
    }),
  };
  return session;
}
