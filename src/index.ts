/**
 * Rye for TypeScript — the root entry (`rye-ts`, docs/library.md): errors,
 * signatures and trust, items and their spaces, search/load/list, lockfiles,
 * bundles and the executor. Everything here is stable; anything not exported
 * by an entry is internal. The operations, threads, the MCP server and the
 * registry client are entries of their own (`rye-ts/ops`, `rye-ts/threads`,
 * `rye-ts/mcp`, `rye-ts/registry`), so importing this one loads no provider
 * SDK, no MCP SDK, no zod and no pg (test/package/root-loads.test.ts).
 */

// Errors: one RyeError with a stable code; the codes, their class, exit code, hint and JSON form.
export {
  ERROR_CODES,
  RyeError,
  errorJson,
  exitCodeFor,
  hintFor,
  isIntegrityCode,
  isRyeError,
  snakeCaseKeys,
} from './errors/index.js';
export type { ErrorClass, ErrorCode, ErrorDetails, ErrorJson } from './errors/index.js';

// Signatures and trust: keys, signing and verifying text and files, trusted keys (docs/signatures.md).
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
  verifyFileSync,
  verifyText,
  verifyTextAsync,
} from './integrity/index.js';
export type {
  Coverage,
  KeyFiles,
  KeyPairPem,
  KeyScope,
  LoadedTrust,
  PublicKeyInfo,
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

// Items and spaces: ids and types, the three spaces, resolving, metadata, validation,
// signing item files, trusted keys per space, a project's discovery and init (docs/concepts.md).
export {
  ITEM_EXTENSIONS,
  ITEM_TYPES,
  SPACE_NAMES,
  addTrustedKey,
  assertValid,
  discoverProject,
  ensureSelfTrusted,
  extractMetadata,
  initProject,
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
  DirectiveMetadata,
  DiscoveredProject,
  InitResult,
  ItemMetadata,
  ItemType,
  KnowledgeMetadata,
  ResolvedItem,
  SignedItem,
  SpaceName,
  SpaceTrust,
  Spaces,
  SpacesOptions,
  ToolMetadata,
  ValidationIssue,
} from './items/index.js';

// Directives as programs: the strict grammar (docs/directives.md); running one is rye-ts/threads.
export { parseDirectiveProgram } from './items/index.js';
export type {
  DirectiveHook,
  DirectiveInputDecl,
  DirectiveLimits,
  DirectiveOutputs,
  DirectivePermissionList,
  DirectiveProgram,
  DirectiveStep,
  PermissionEntry,
} from './items/index.js';

// Search, load and list over the three spaces, filtered by a visibility predicate (docs/search.md).
export { listItems, loadItem, searchItems } from './catalog/index.js';
export type {
  CatalogScope,
  CatalogVerdict,
  Deny,
  ListOptions,
  ListedItem,
  LoadOptions,
  LoadedItem,
  Recheck,
  SearchOptions,
  SearchResult,
  Visible,
} from './catalog/index.js';

// Lockfiles: pin a tool's chain and dependencies, check every pin (docs/lockfiles.md).
export { updateLockfile, verifyLockfiles } from './executor/index.js';
export type { LockStatus } from './executor/index.js';
export { parseLockfile } from './lockfile/index.js';
export type { Lockfile } from './lockfile/index.js';

// Bundles: an app under one signed manifest; create, list, verify (docs/bundles.md).
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
export type {
  BundleFileReport,
  BundleManifest,
  BundleReport,
  BundlerAction,
  BundlerParams,
  BundlerResult,
  CreateBundleInput,
  CreatedBundle,
  ListedBundle,
  ManifestCheck,
  VerifiedDependencyResult,
  VerifyBundleInput,
  VerifyDependencyOptions,
} from './bundle/index.js';

// The executor: build and verify a tool's chain, then run it sandboxed (docs/executor.md).
export { execute } from './executor/index.js';
export type { ChainEntry, ExecuteOptions, ExecuteResult, ExecutionPlan } from './executor/index.js';
