/**
 * Rye for TypeScript — the public library API. Everything here is stable;
 * anything not exported is internal.
 */
export {
  ERROR_CODES,
  RyeError,
  exitCodeFor,
  hintFor,
  isIntegrityCode,
  isRyeError,
} from './errors/index.js';
export type { ErrorClass, ErrorCode, ErrorDetails } from './errors/index.js';

export {
  DEFAULT_SIGNATURE_FORMATS,
  bodyWithoutSignature,
  canonicalPem,
  fingerprintOf,
  formatTrustToml,
  generateKeyFiles,
  generateKeyPair,
  loadExplicitTrust,
  loadTrustStore,
  mergeSignatureFormats,
  parsePrivateKey,
  parsePublicKey,
  parseTrustToml,
  readSigner,
  readTrustFile,
  sha256Hex,
  signText,
  signatureFormatFor,
  trustSetOf,
  tryParseSignaturePayload,
  verifyFile,
  verifyText,
  verifyTextAsync,
} from './integrity/index.js';
export type {
  Coverage,
  LoadedTrust,
  SignTextOptions,
  SignatureFields,
  SignatureFormat,
  SignatureFormatTable,
  SignedText,
  Signer,
  TrustSet,
  TrustedKey,
  Verdict,
  VerifyResult,
  VerifyTextOptions,
} from './integrity/index.js';

export {
  ITEM_EXTENSIONS,
  ITEM_TYPES,
  SPACE_NAMES,
  addTrustedKey,
  assertValid,
  ensureSelfTrusted,
  extractMetadata,
  keyDir,
  loadSpaceTrust,
  parseItemId,
  parseItemType,
  readItemMetadata,
  removeTrustedKey,
  resolveItem,
  resolveSpaces,
  selectItems,
  signItemFile,
  validateItem,
  verifyItemFile,
} from './items/index.js';
export type {
  ItemMetadata,
  ItemType,
  ResolvedItem,
  SignedItem,
  SpaceName,
  Spaces,
  ValidationIssue,
} from './items/index.js';

export {
  BUNDLER_ACTIONS,
  createBundle,
  listBundles,
  parseManifest,
  runBundlerAction,
  serializeManifest,
  verifyBundle,
  verifyDependency,
} from './bundle/index.js';
export type { BundleManifest, BundleReport, VerifiedDependencyResult } from './bundle/index.js';

export { execute, updateLockfile, verifyLockfiles } from './executor/index.js';
export type { ExecuteOptions, ExecuteResult } from './executor/index.js';

export { REGISTRY_ACTIONS, runRegistryAction, signKeyProof } from './registry/index.js';
export type {
  RegistryAction,
  RegistryActionOptions,
  RegistryParams,
  RegistryResult,
} from './registry/index.js';

export { main } from './cli/index.js';

// Issue 12 (docs and package): the JSON contract's error form, the one glob compiler.
export { errorJson, snakeCaseKeys } from './errors/index.js';
export type { ErrorJson } from './errors/index.js';
export { compileGlob, printable } from './platform/index.js';
