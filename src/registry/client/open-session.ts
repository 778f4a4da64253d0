import type { Spaces } from '../../items/index.js';
import type { PrepareToPin } from '../../lockfile/index.js';
import { guardRequest } from './credential-guard.js';
import { RegistryHttp, type FetchFn } from './http.js';
import { resolveRegistryUrl } from './registry-url.js';
import type { Env, KeyCheckCache, RegistrySession } from './session.js';

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
