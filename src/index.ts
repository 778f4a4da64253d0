/**
 * Rye for TypeScript — the public library API. Everything here is stable;
 * anything not exported is internal.
 */
import { prepareToPin } from './executor/index.js';
import type { Spaces } from './items/index.js';
import {
  runRegistryAction as registryAction,
  type RegistryActionOptions,
  type RegistryParams,
  type RegistryResult,
} from './registry/index.js';

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

export { REGISTRY_ACTIONS, signKeyProof } from './registry/index.js';
export type {
  RegistryAction,
  RegistryActionOptions,
  RegistryParams,
  RegistryResult,
} from './registry/index.js';

/**
 * Run one registry action (the registry client's `runRegistryAction`), with
 * the executor's verification plugged in so a pulled tool is pinned in a
 * lockfile: the registry takes it as a port and never imports the executor.
 *
 * @throws RyeError the codes of the registry client's runRegistryAction.
 */
export function runRegistryAction(
  project: string | Spaces,
  params: RegistryParams,
  options: RegistryActionOptions = {},
): Promise<RegistryResult> {
  return registryAction(project, params, { prepareToPin, ...options });
}

// Directives as programs (issue 13): the grammar (docs/directives.md) and its runtime pieces.
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
export {
  DEFAULT_LIMITS,
  admitHooks,
  clampLimits,
  interpolate,
  interpolateProgram,
  parseLimitOverrides,
  renderSummary,
  resolveInputs,
  resolveLimits,
  returnSchemaOf,
  validateReturn,
} from './threads/directive/index.js';
export type {
  AdmittedHook,
  InputValues,
  ResolvedLimits,
  ReturnSchema,
} from './threads/directive/index.js';
// Search, load and list over the three spaces (catalog, issue 13).
export { listItems, loadItem, searchItems } from './catalog/index.js';
export type {
  CatalogScope,
  CatalogVerdict,
  Deny,
  ListOptions,
  ListedItem,
  LoadOptions,
  LoadedItem,
  SearchOptions,
  SearchResult,
  Visible,
} from './catalog/index.js';
// Threads foundation (issue 14): thread ids, the budget ledger, transcripts, thread records.
export { newThreadId, parseThreadId, systemClock } from './ids/index.js';
export type { Clock, ThreadId } from './ids/index.js';
export {
  chargeForUsage,
  formatUsd,
  memoryBudgetStore,
  openSqliteBudgetStore,
  parsePricing,
  parseUsd,
  planOutputCap,
  worstCase,
} from './threads/budget/index.js';
export type { BudgetStore, ModelPricing, Nanos } from './threads/budget/index.js';
export {
  TranscriptWriter,
  macKeyring,
  readTranscriptBytes,
  rebuildThread,
  repairTranscript,
  resolveArtifacts,
  splitLines,
  verifyTranscript,
  verifyTranscriptAsync,
} from './threads/transcript/index.js';
export type {
  MacKeyring,
  RebuiltThread,
  StoredEvent,
  VerifiedTranscript,
} from './threads/transcript/index.js';
export {
  RegistryDb,
  acquireTreeLock,
  readThreadRecord,
  threadPaths,
  writeThreadRecord,
} from './threads/store/index.js';
export type { ThreadRecord, ThreadStatus, TreeLock } from './threads/store/index.js';
// Issue 12 (a newcomer's first day): rye init, project discovery, key removal, transfer progress.
export { discoverProject, initProject } from './items/index.js';
export type { DiscoveredProject, InitResult } from './items/index.js';
export { removeAuthorKey } from './registry/index.js';
export type { TransferProgress, TransferProgressFn } from './registry/index.js';
export { main } from './cli/index.js';

// Issue 12 (docs and package): the JSON contract's error form, the one glob compiler.
export { errorJson, snakeCaseKeys } from './errors/index.js';
export type { ErrorJson } from './errors/index.js';
export { compileGlob, printable } from './platform/index.js';
// The MCP server (issue 16): the four operations as MCP tools, ceilings, stdio and HTTP.
export {
  createRyeMcpServer,
  mcpToolDefinitions,
  readCeilingSources,
  resolveAuthority,
  revokeCeilingJti,
  serveStdio,
  startMcpServer,
  toCallResult,
} from './mcp/index.js';
export type {
  CeilingSource,
  McpCallResult,
  McpServeOptions,
  McpToolDefinition,
  RyeMcpServer,
} from './mcp/index.js';
// Search freshness modes and transcript checkpoint modes (perf: search and resume goals).
export type { Recheck } from './catalog/index.js';
export type { CheckpointMode, VerifyTranscriptOptions } from './threads/transcript/index.js';

// Issue 14 (the thread runner): run a directive as a thread; list, show and verify threads.
export { listThreads, showThread, verifyThread } from './threads/control/index.js';
export { runThread } from './threads/tree/index.js';
export type { RunThreadInput, ThreadResult } from './threads/loop/index.js';
export type { ThreadVerification } from './threads/control/index.js';

// Issue 15 (hooks and compaction): the seam that runs hook children, the live-window measure.
export { windowTokens } from './threads/hooks/index.js';
export type { HookChildResult, HookDirectiveRequest, HookHost } from './threads/hooks/index.js';
// Issue 16 (MCP threads): root threads run or spawned detached, their shared answer, the
// thread tools' registry, ceiling tokens minted, verified and revoked.
export { runRootThread, spawnRootThread, threadAnswer } from './threads/root/index.js';
export type { RootThreadOptions, SpawnRootOptions } from './threads/root/index.js';
export { THREAD_TOOLS } from './threads/thread-tools/index.js';
export { THREAD_TOOL_PREFIX } from './ops/index.js';
export type { ThreadToolHandler } from './ops/index.js';
export {
  mintCeilingToken,
  parseTtl,
  readRevocationList,
  verifyCeilingToken,
} from './capabilities/index.js';
export type { MintedCeiling } from './capabilities/index.js';
// Issue 14 (thread control across processes): cancel, wait for and tail threads.
export {
  cancelThread,
  resumeThread,
  tailTranscript,
  waitThreads,
} from './threads/control/index.js';
export { watchCancelRequests } from './threads/loop/index.js';
export type {
  CancelOutcome,
  CancelThreadInput,
  ResumeThreadInput,
  TailInput,
  WaitResult,
  WaitThreadsInput,
} from './threads/control/index.js';
export type { ThreadOutcome } from './threads/outcome/index.js';

// The four operations as a library call (what the CLI, threads and MCP call), and the
// authorities they run under: the operator's whole authority, narrowed by a capability set.
export { errorResult, runOperation } from './ops/index.js';
export type { OperationContext, OperationName, OperationResult } from './ops/index.js';
export {
  compileCaps,
  narrowAuthority,
  operatorAuthority,
  parseCapsOption,
} from './capabilities/index.js';
export type { Authority, CapSet } from './capabilities/index.js';
