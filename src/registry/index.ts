/**
 * The registry domain: shared names, attestation and wire documents here;
 * the server under `server/`, the client under `client/`.
 */
export {
  assertStatementSigned,
  formatStatement,
  parseStatement,
  signStatement,
} from './attestation.js';
export type { AttestationStatement } from './attestation.js';
export {
  KEY_CHALLENGE_RE,
  KEY_PROOF_CONTEXT,
  keyProofMessage,
  keyProofVerifies,
  signKeyProof,
} from './key-proof.js';
export type { KeyProofFields } from './key-proof.js';
export {
  MAX_INDEX_BYTES,
  MAX_INDEX_VERSIONS,
  assertIndexSigned,
  formatIndex,
  latestOf,
  parseIndex,
  signIndex,
} from './package-index.js';
export type { IndexEntry, PackageIndex, SignedIndexDocument } from './package-index.js';
export {
  USERNAME_RE,
  assertRegistryId,
  assertVersion,
  isUsername,
  parseRegistryRef,
} from './names.js';
export type { RegistryRef } from './names.js';
export type * from './wire.js';
export {
  DEFAULT_REGISTRY_URL,
  REGISTRY_ACTIONS,
  addAuthorKey,
  removeAuthorKey,
  fetchVerifiedIndex,
  listVersions,
  logout,
  openAccountSession,
  openSession,
  parseRegistryUrl,
  pullBundle,
  pullItem,
  pushBundle,
  pushItem,
  repinRegistryKey,
  resolveRegistryUrl,
  REGISTRY_TOOL_ID,
  registryInProcess,
  runRegistryAction,
  search,
  seenIndexesPath,
  verifyAnswer,
  verifyIndex,
  whoami,
  yank,
} from './client/index.js';
export type {
  AskedFor,
  IndexCheck,
  IndexPackage,
  PinnedRegistryKey,
  RegistryAction,
  RegistryActionOptions,
  RegistryEndpoint,
  RegistryParams,
  RegistryResult,
  RegistrySession,
  TransferProgress,
  TransferProgressFn,
  VerifiedAnswer,
} from './client/index.js';
