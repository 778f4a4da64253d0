export { createAnthropicClient } from './anthropic.js';
export type { ClientConfig } from './client-config.js';
export { BASE_URL_OVERRIDES, readCredential, resolveEndpoint } from './endpoint.js';
export type { ProviderEndpoint } from './endpoint.js';
export { DEFAULT_PROVIDER, providerIdFor, resolveModel } from './model-resolution.js';
export type { ModelChoice, ResolvedModel } from './model-resolution.js';
export { MAX_ARGUMENT_CHARS } from './normalise.js';
export { createOpenAIClient } from './openai.js';
export {
  MAX_DESCRIPTOR_BYTES,
  PROVIDER_CATEGORY,
  PROVIDER_ID_PREFIX,
  parseProviderDescriptor,
} from './provider-config.js';
export type { ProviderDescriptor } from './provider-config.js';
export type { ModelInfo, ModelPricing, ProviderAuth } from './descriptor-fields.js';
export { classifyFailure, retryAfterMs } from './provider-errors.js';
export type { WireFailure } from './provider-errors.js';
export { PROVIDER_SPACES, readProviderDescriptor } from './read-provider.js';
export type { LoadedProvider, ReadProviderOptions } from './read-provider.js';
export { DEFAULT_RETRY_POLICY, abortableSleep, withProviderRetries } from './retry.js';
export type { RetryOptions, RetryPolicy } from './retry.js';
export { createProviderClient, selectProvider } from './select-provider.js';
export type { ProviderSelection, SelectProviderOptions } from './select-provider.js';
export { PROVIDER_FAMILIES } from './types.js';
export type {
  ProviderClient,
  ProviderFamily,
  ProviderProgress,
  ProviderRequest,
  ProviderResponse,
  SendOptions,
  StopReason,
} from './types.js';
