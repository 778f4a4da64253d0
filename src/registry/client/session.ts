import type { Spaces } from '../../items/index.js';
import { RegistryHttp, type FetchFn } from './http.js';
import { resolveRegistryUrl, type RegistryEndpoint } from './registry-url.js';

export type Env = Readonly<Record<string, string | undefined>>;

/** Everything one registry operation needs: where, who (spaces, env), and the transport. */
export interface RegistrySession {
  readonly spaces: Spaces;
  readonly endpoint: RegistryEndpoint;
  readonly env: Env;
  readonly http: RegistryHttp;
}

export interface SessionOptions {
  readonly spaces: Spaces;
  /** `--registry`; falls back to RYE_REGISTRY_URL, then the default. */
  readonly registry?: string | undefined;
  readonly env?: Env;
  readonly fetch?: FetchFn;
  readonly timeoutMs?: number;
}

/** @throws RyeError REGISTRY_URL_INVALID */
export function openSession(options: SessionOptions): RegistrySession {
  const env = options.env ?? process.env;
  const endpoint = resolveRegistryUrl(options.registry, env);
  return {
    spaces: options.spaces,
    endpoint,
    env,
    http: new RegistryHttp(endpoint.url, {
      ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    }),
  };
}
