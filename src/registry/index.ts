/**
 * The registry domain, and the registry entry (`rye-ts/registry`,
 * docs/library.md, docs/registry.md): the client (push, pull, search,
 * accounts, author keys, `runRegistryAction`), shared names, attestation and
 * wire documents. The server, under `server/`, has its own door and is not
 * part of this entry (it loads Hono and pg).
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
  search,
  seenIndexesPath,
  verifyAnswer,
  verifyIndex,
  whoami,
  yank,
} from './client/index.js';
// The client's action runner, with the executor's verification for pinning a pulled tool.
export { runRegistryAction } from './run-action.js';
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
