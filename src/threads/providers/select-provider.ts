/**
 * From a directive's `<model>` to a ready client: which descriptor (user →
 * system), which model, which endpoint, then the key. Planning stops before
 * the key, so `--plan` works without one.
 */
import type { TrustSet } from '../../integrity/index.js';
import type { Spaces } from '../../items/index.js';
import { createAnthropicClient } from './anthropic.js';
import { readCredential, resolveEndpoint, type ProviderEndpoint } from './endpoint.js';
import {
  providerIdFor,
  resolveModel,
  type ModelChoice,
  type ResolvedModel,
} from './model-resolution.js';
import { createOpenAIClient } from './openai.js';
import { readProviderDescriptor, type LoadedProvider } from './read-provider.js';
import type { ProviderClient } from './types.js';

export interface ProviderSelection {
  readonly provider: LoadedProvider;
  readonly model: ResolvedModel;
  readonly endpoint: ProviderEndpoint;
}

export interface SelectProviderOptions {
  /** The process environment (`RYE_PROVIDER`, base URL overrides); never a project `.env`. */
  readonly env?: NodeJS.ProcessEnv;
  readonly trust?: TrustSet;
}

/**
 * Resolve the provider, model and endpoint a choice names. Needs no key.
 *
 * @throws RyeError PROVIDER_NOT_FOUND, PROVIDER_CONFIG_INVALID,
 *   PROVIDER_MODEL_UNKNOWN, PROVIDER_INSECURE_TRANSPORT, and the descriptor
 *   reading and verification codes of readProviderDescriptor
 */
export async function selectProvider(
  spaces: Spaces,
  choice: ModelChoice,
  options: SelectProviderOptions = {},
): Promise<ProviderSelection> {
  const env = options.env ?? process.env;
  const provider = await readProviderDescriptor(
    spaces,
    providerIdFor(choice, env),
    options.trust === undefined ? {} : { trust: options.trust },
  );
  const model = resolveModel(provider.descriptor, choice);
  const endpoint = resolveEndpoint(provider.descriptor, env);
  return { provider, model, endpoint };
}

/**
 * The client for a selection, with the key read from the process environment.
 *
 * @throws RyeError PROVIDER_AUTH_MISSING naming the variable
 */
export function createProviderClient(
  selection: ProviderSelection,
  options: { env?: NodeJS.ProcessEnv; fetch?: typeof globalThis.fetch } = {},
): ProviderClient {
  const { descriptor } = selection.provider;
  const config = {
    provider: descriptor.id,
    baseUrl: selection.endpoint.base_url,
    auth: descriptor.auth,
    credential: readCredential(descriptor, options.env ?? process.env),
    headers: descriptor.headers,
    ...(descriptor.max_tokens_field === undefined
      ? {}
      : { maxTokensField: descriptor.max_tokens_field }),
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
  };
  return descriptor.family === 'anthropic_messages'
    ? createAnthropicClient(config)
    : createOpenAIClient(config);
}
