/**
 * Where a provider's requests go and with which key. Both come from the
 * process environment the user started rye with (never a project `.env`):
 * `ANTHROPIC_BASE_URL` / `OPENAI_BASE_URL` override the standard descriptors'
 * `base_url` as the SDKs' users expect, and `auth.env` names the key.
 */
import { RyeError } from '../../errors/index.js';
import { baseUrlProblem } from './descriptor-fields.js';
import type { ProviderDescriptor } from './provider-config.js';

/** The override variable for each standard descriptor (other descriptors set their own base_url). */
export const BASE_URL_OVERRIDES: Readonly<Record<string, string>> = {
  anthropic: 'ANTHROPIC_BASE_URL',
  openai: 'OPENAI_BASE_URL',
};

export interface ProviderEndpoint {
  /** The API root the SDK is pointed at, without a trailing slash. */
  readonly base_url: string;
  /** `descriptor`, or the environment variable that overrode it. */
  readonly source: string;
  /** `host[:port]`, for the run to print. */
  readonly host: string;
}

/**
 * The endpoint for a descriptor. Credentials go only over https, or plain
 * http to a loopback address.
 *
 * @throws RyeError PROVIDER_CONFIG_INVALID (an override that is not a usable
 *   URL), PROVIDER_INSECURE_TRANSPORT
 */
export function resolveEndpoint(
  descriptor: ProviderDescriptor,
  env: NodeJS.ProcessEnv,
): ProviderEndpoint {
  const variable = Object.hasOwn(BASE_URL_OVERRIDES, descriptor.id)
    ? BASE_URL_OVERRIDES[descriptor.id]
    : undefined;
  const override = variable === undefined ? undefined : env[variable];
  let base = descriptor.base_url;
  let source = 'descriptor';
  if (variable !== undefined && override !== undefined && override !== '') {
    const problem = baseUrlProblem(override);
    if (problem !== undefined) {
      throw new RyeError(
        'PROVIDER_CONFIG_INVALID',
        `Cannot use ${variable} for provider ${descriptor.id}: it ${problem}`,
        { provider: descriptor.id, variable, issues: [{ field: variable, message: problem }] },
      );
    }
    base = override.replace(/\/+$/, '');
    source = variable;
  }
  const url = new URL(base);
  if (url.protocol !== 'https:' && !isLoopback(url.hostname)) {
    throw new RyeError(
      'PROVIDER_INSECURE_TRANSPORT',
      `Cannot send provider ${descriptor.id}'s credential to ${url.host} over plain http: only loopback addresses may use http://`,
      { provider: descriptor.id, host: url.host, source },
    );
  }
  return { base_url: base, source, host: url.host };
}

/**
 * The key from the variable `auth.env` names, in the process environment.
 * The value never appears in an error.
 *
 * @throws RyeError PROVIDER_AUTH_MISSING naming the variable
 */
export function readCredential(descriptor: ProviderDescriptor, env: NodeJS.ProcessEnv): string {
  const name = descriptor.auth.env;
  const value = env[name];
  if (value === undefined || value.trim() === '') {
    throw new RyeError(
      'PROVIDER_AUTH_MISSING',
      `Cannot call provider ${descriptor.id}: set ${name} in the environment rye runs in`,
      { provider: descriptor.id, env: name },
    );
  }
  // A header value cannot hold control characters; say so without echoing the key.
  if (!/^[\x20-\x7e]+$/.test(value)) {
    throw new RyeError(
      'PROVIDER_AUTH_MISSING',
      `Cannot call provider ${descriptor.id}: ${name} holds characters a header cannot carry`,
      { provider: descriptor.id, env: name },
    );
  }
  return value.trim();
}

function isLoopback(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}
