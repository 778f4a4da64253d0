import { RyeError } from '../../errors/index.js';

/** The registry used when neither `--registry` nor `RYE_REGISTRY_URL` names one. */
export const DEFAULT_REGISTRY_URL = 'http://127.0.0.1:8080';

/** A registry's address, normalized, and the identity pins and trust owners use. */
export interface RegistryEndpoint {
  /** `http(s)://host[:port]`: lowercase scheme and host, no path, no trailing slash. */
  readonly url: string;
  /** `host:port` with the port always written (80/443 filled in), e.g. `127.0.0.1:8080`. */
  readonly identity: string;
}

/**
 * Normalize a registry URL. Only `http:` and `https:` origins are accepted:
 * credentials, a path other than `/`, a query or a fragment are refused so one
 * registry has exactly one spelling (the key its pin and token are stored under).
 *
 * @throws RyeError REGISTRY_URL_INVALID
 */
export function parseRegistryUrl(text: string): RegistryEndpoint {
  const shown = printable(text);
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
  if (url.hostname === '') refuse('it has no host');
  const port = url.port !== '' ? url.port : url.protocol === 'https:' ? '443' : '80';
  return { url: url.origin, identity: `${url.hostname}:${port}` };
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

function printable(value: string): string {
  // eslint-disable-next-line no-control-regex
  return value.replace(/[\u0000-\u001f\u007f]/g, '?').slice(0, 200);
}
