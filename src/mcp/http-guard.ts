import { isIP } from 'node:net';
import { RyeError } from '../errors/index.js';
import { apiTokenHash, hexDigestsEqual } from '../integrity/index.js';

/** What an HTTP request must match: the Host names it may use and the bearer token. */
export interface HttpGuard {
  /** Lowercase `host[:port]` values a request may name in Host (and Origin). */
  readonly hosts: ReadonlySet<string>;
  /** SHA-256 hex of the bearer token. */
  readonly tokenHash: string;
}

/** True for 127.0.0.0/8, ::1 and `localhost`. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (bare === 'localhost' || bare === '::1') return true;
  return isIP(bare) === 4 && bare.startsWith('127.');
}

/**
 * The guard of a server listening on `bindHost:port`: Host may name the
 * loopback names or the bound address, with the port (bare too on port 80).
 * Pure.
 */
export function httpGuardFor(bindHost: string, port: number, token: string): HttpGuard {
  const names = new Set(['127.0.0.1', 'localhost', '[::1]']);
  if (!['0.0.0.0', '::'].includes(bindHost))
    names.add(isIP(bindHost) === 6 ? `[${bindHost}]` : bindHost.toLowerCase());
  const hosts = new Set<string>();
  for (const name of names) {
    hosts.add(`${name}:${port}`);
    if (port === 80) hosts.add(name);
  }
  return { hosts, tokenHash: apiTokenHash(token) };
}

export interface GuardRefusal {
  readonly status: 401 | 403;
  readonly error: RyeError;
}

/**
 * Check one request before anything reads its body (THREADS.md §16): Host
 * must be one this server answers to and Origin, when a browser sends one,
 * must be `http://` + such a host (DNS rebinding); then the bearer token,
 * compared in constant time over its hash. Pure.
 */
export function checkHttpRequest(
  headers: {
    readonly host: string | undefined;
    readonly origin: string | undefined;
    readonly authorization: string | undefined;
  },
  guard: HttpGuard,
): GuardRefusal | undefined {
  const host = headers.host?.toLowerCase();
  if (host === undefined || !guard.hosts.has(host))
    return forbidden('Host', headers.host ?? '(none)');
  if (headers.origin !== undefined && !originAllowed(headers.origin, guard))
    return forbidden('Origin', headers.origin);
  const presented = /^Bearer +(\S+) *$/i.exec(headers.authorization ?? '')?.[1];
  if (presented === undefined || !hexDigestsEqual(apiTokenHash(presented), guard.tokenHash))
    return {
      status: 401,
      error: new RyeError(
        'MCP_HTTP_UNAUTHORIZED',
        presented === undefined
          ? 'Cannot serve the request: it carries no bearer token'
          : 'Cannot serve the request: the bearer token is wrong',
      ),
    };
  return undefined;
}

function originAllowed(origin: string, guard: HttpGuard): boolean {
  try {
    const url = new URL(origin);
    return url.protocol === 'http:' && guard.hosts.has(url.host.toLowerCase());
  } catch {
    return false;
  }
}

function forbidden(header: 'Host' | 'Origin', value: string): GuardRefusal {
  const shown = value.slice(0, 200);
  return {
    status: 403,
    error: new RyeError(
      'MCP_HTTP_HOST_REFUSED',
      `Cannot serve the request: ${header} "${shown}" is not an address this server listens on`,
      { header, value: shown },
    ),
  };
}
