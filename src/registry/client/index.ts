/**
 * The registry client: HTTP transport, credentials, TOFU pins, answer
 * verification, push and pull of items and bundles, and the action entry
 * point shared by the CLI and the `rye/core/registry/registry` tool.
 */
export { logout, openAccountSession, whoami } from './account.js';
export { addAuthorKey, removeAuthorKey } from './author-key.js';
export { REGISTRY_ACTIONS, runRegistryAction } from './actions.js';
export { REGISTRY_TOOL_ID, registryInProcess } from './in-process-tool.js';
export type {
  RegistryAction,
  RegistryActionOptions,
  RegistryParams,
  RegistryResult,
} from './actions.js';
export { listVersions, parseTarget, search, yank } from './browse.js';
export type { SearchInput } from './browse.js';
export { MAX_PULL_BUNDLE_BYTES, checkBundleAnswer } from './bundle-answer.js';
export type { CheckedBundle } from './bundle-answer.js';
export {
  credentialsPath,
  findToken,
  forgetCredential,
  readCredential,
  requireToken,
  saveCredential,
} from './credentials.js';
export type { SavedCredential, TokenInUse } from './credentials.js';
export {
  parseBundleVersionDocument,
  parseItemVersionDocument,
  parseRegistryKeyDocument,
} from './documents.js';
export {
  INDEX_PATH,
  assertMatchesIndex,
  chooseVersion,
  fetchVerifiedIndex,
  parseSignedIndexDocument,
} from './fetch-index.js';
export { DEFAULT_TIMEOUT_MS, MAX_JSON_ANSWER_BYTES, RegistryHttp } from './http.js';
export { packageName, readSeenSeq, recordSeenSeq, seenIndexesPath } from './index-state.js';
export type { IndexPackage } from './index-state.js';
export type { FetchFn, HttpAnswer, HttpRequest } from './http.js';
export { knownRegistriesPath, readPin, savePin } from './pins.js';
export type { RegistryPin } from './pins.js';
export type { TransferProgress, TransferProgressFn } from './progress.js';
export { pullBundle } from './pull-bundle.js';
export type { PullBundleInput } from './pull-bundle.js';
export { pullItem } from './pull-item.js';
export type { PullItemInput } from './pull-item.js';
export { pushBundle } from './push-bundle.js';
export type { PushBundleInput } from './push-bundle.js';
export { pushItem } from './push-item.js';
export type { PushItemInput } from './push-item.js';
export {
  REGISTRY_KEY_PATH,
  fetchRegistryKey,
  pinnedRegistryKey,
  repinRegistryKey,
} from './registry-key.js';
export {
  DEFAULT_REGISTRY_URL,
  isLoopbackHost,
  parseRegistryUrl,
  resolveRegistryUrl,
} from './registry-url.js';
export type { RegistryEndpoint, RegistryTransport } from './registry-url.js';
export { openSession } from './open-session.js';
export type { SessionOptions } from './open-session.js';
export type { CheckedRegistryKey, Env, RegistrySession } from './session.js';
export { guardRequest } from './credential-guard.js';
export { verifyAnswer } from './verify-answer.js';
export { verifyIndex } from './verify-index.js';
export type { IndexCheck } from './verify-index.js';
export type { AskedFor, PinnedRegistryKey, VerifiedAnswer } from './verify-answer.js';
