import { RyeError } from '../../errors/index.js';
import { printable } from '../../platform/index.js';

/** The registry used when neither `--registry` nor `RYE_REGISTRY_URL` names one. */
export const DEFAULT_REGISTRY_URL = 'http://127.0.0.1:8080';

/**
 * How far the transport to a registry can be trusted before its key is known:
 * `https` (TLS), `loopback` (plain HTTP to this machine), or `insecure` (plain
 * HTTP to another host: usable only once its key was pinned explicitly).
 */
export type RegistryTransport = 'https' | 'loopback' | 'insecure';

/** A registry's address, normalized, and the identity pins and trust owners use. */
export interface RegistryEndpoint {
  /**
   * The canonical origin `http(s)://host:port`: lowercase scheme and host
   * (IDN as punycode, IPv4 in dotted decimal, IPv6 in brackets), no trailing
   * dot, the port always written (80/443 filled in), no path. Pins and saved
   * tokens are keyed by exactly this text.
   */
  readonly url: string;
  /** `host:port` of {@link url}, e.g. `127.0.0.1:8080`. */
  readonly identity: string;
  readonly transport: RegistryTransport;
}

/**
 * Normalize a registry URL to its canonical origin. Only `http:` and `https:`
 * origins are accepted: credentials, a path other than `/`, a query or a
 * fragment are refused so one registry has exactly one spelling (the key its
 * pin and token are stored under). Different host spellings stay different
 * origins: `localhost` and `127.0.0.1` have separate pins and tokens, since
 * nothing proves they reach the same server.
 *
 * @throws RyeError REGISTRY_URL_INVALID
 */
export function parseRegistryUrl(text: string): RegistryEndpoint {
  const shown = printable(text, 200);
  const refuse = (why: string): never => {
    throw new RyeError('REGISTRY_URL_INVALID', `Cannot use registry URL "${shown}": ${why}`, {
      url: shown,
    });
  };
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    return refuse('it is not a URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') refuse('only http and https work');
  if (url.username !== '' || url.password !== '') refuse('it holds credentials');
  if (url.pathname !== '/' && url.pathname !== '') refuse('it has a path');
  if (url.search !== '' || url.hash !== '' || text.includes('?') || text.includes('#'))
    refuse('it has a query or fragment');
  // `example.com.` and `example.com` are one DNS name: one spelling for both.
  const host = url.hostname.endsWith('.') ? url.hostname.slice(0, -1) : url.hostname;
  if (host === '' || host.endsWith('.')) refuse('it has no host');
  const https = url.protocol === 'https:';
  const port = url.port !== '' ? url.port : https ? '443' : '80';
  const identity = `${host}:${port}`;
  return {
    url: `${url.protocol}//${identity}`,
    identity,
    transport: https ? 'https' : isLoopbackHost(host) ? 'loopback' : 'insecure',
  };
}

/**
 * True for a host name that can only mean this machine: `localhost`, an
 * IPv4 address in 127.0.0.0/8, or `[::1]` (as WHATWG URL writes them).
 * Names merely ending in `.localhost` are not counted: nothing forces a
 * resolver to send them to loopback.
 */
export function isLoopbackHost(host: string): boolean {
  if (host === 'localhost' || host === '[::1]') return true;
  const octets = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  return octets !== null && octets[1] === '127';
}

/**
 * The registry to talk to: `--registry` first, then `RYE_REGISTRY_URL`, then
 * {@link DEFAULT_REGISTRY_URL}.
 *
 * @throws RyeError REGISTRY_URL_INVALID
 */
export function resolveRegistryUrl(
  flag: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
): RegistryEndpoint {
  const fromEnv = env['RYE_REGISTRY_URL'];
  if (flag !== undefined && flag !== '') return parseRegistryUrl(flag);
  if (fromEnv !== undefined && fromEnv !== '') return parseRegistryUrl(fromEnv);
  return parseRegistryUrl(DEFAULT_REGISTRY_URL);
}

/** The canonical origin of a URL, or undefined when it is not a registry URL. */
export function tryCanonicalOrigin(text: string): string | undefined {
  try {
    return parseRegistryUrl(text).url;
  } catch {
    return undefined;
  }
}
