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
  runRegistryAction,
  search,
  verifyAnswer,
  whoami,
  yank,
} from './client/index.js';
export type {
  AskedFor,
  PinnedRegistryKey,
  RegistryAction,
  RegistryActionOptions,
  RegistryEndpoint,
  RegistryParams,
  RegistryResult,
  RegistrySession,
  VerifiedAnswer,
} from './client/index.js';
