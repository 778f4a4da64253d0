export { compileIdGlob, isGlob } from './glob.js';
export { readItemMetadata, signItemFile, verifyItemFile } from './item-files.js';
export type { SignedItem } from './item-files.js';
export { isItemId, itemCategory, itemName, parseItemId, problemWith } from './item-id.js';
export { ITEM_EXTENSIONS, ITEM_FOLDERS, ITEM_TYPES, parseItemType } from './item-type.js';
export type { ItemType } from './item-type.js';
export { extractMetadata } from './metadata/read-metadata.js';
export { parseYamlDocumentCapped } from './metadata/yaml-document.js';
export type { YamlCaps, YamlLibrary } from './metadata/yaml-document.js';
export type {
  DirectiveMetadata,
  ItemMetadata,
  KnowledgeMetadata,
  ToolMetadata,
  ValidationIssue,
} from './metadata/types.js';
export { LIST_EXCLUDED_DIRS, listItemFiles, resolveItem, typeRoot } from './resolve.js';
export type { ResolvedItem } from './resolve.js';
export { ignoredReservedFiles, selectItems } from './select.js';
export {
  RESERVED_PREFIX,
  assertNotReserved,
  isReservedId,
  reservedItemPath,
  spacesForId,
} from './reserved-ids.js';
export {
  SPACE_NAMES,
  aiDir,
  keyDir,
  parseSpaceName,
  resolveSpaces,
  trustStores,
} from './spaces.js';
export type { SpaceName, Spaces, SpacesOptions } from './spaces.js';
export { assertProjectFolder, discoverProject } from './project-discovery.js';
export { INIT_FOLDERS, PROJECT_README, initProject } from './init-project.js';
export type { InitResult } from './init-project.js';
export type { DiscoveredProject } from './project-discovery.js';
export {
  approvalsPath,
  approveProjectTrust,
  keepApproved,
  readProjectTrust,
  realFolder,
  revokeProjectTrust,
} from './project-trust.js';
export type { ProjectTrust, ProjectTrustStatus } from './project-trust.js';
export type { ProjectApproval } from './approvals.js';
export type { SpaceTrust } from './trust-admin.js';
export {
  addTrustedKey,
  ensureSelfTrusted,
  loadSpaceTrust,
  removeTrustedKey,
  trustDir,
} from './trust-admin.js';
export { assertValid, identityIssues, validateItem } from './validate.js';
export { compareSemver, isSemver } from './semver.js';
// Directives as programs (issue 13): the strict grammar, docs/directives.md.
export {
  DEFAULT_PRESSURE_RATIO,
  HOOK_EVENTS,
  LIMIT_MAXIMA,
  LIMIT_NAMES,
  LIMIT_WHEN,
  PERMISSION_TYPES,
  PERMISSION_VERBS,
  RESULT_MODES,
  RUNTIME_PLACEHOLDERS,
  SPEND_MAX_USD,
  VALUE_TYPES,
  describeValue,
  forEachToken,
  idTemplateProblem,
  isPlainObject,
  limitAlias,
  limitNameOf,
  malformedSample,
  parseDirectiveProgram,
  parseLimitValue,
  replaceTokens,
  spendNanos,
  valueTypeProblem,
} from './directive/index.js';
export type {
  DirectiveHook,
  DirectiveInputDecl,
  DirectiveLimits,
  DirectiveModel,
  DirectiveOutputDecl,
  DirectiveOutputs,
  DirectivePermissionList,
  DirectiveSandbox,
  DirectiveProgram,
  DirectiveStep,
  HookEvent,
  JsonValue,
  LimitName,
  LimitValue,
  PermissionEntry,
  ProgramReading,
  ResultMode,
  StepAction,
  Token,
  ValueType,
} from './directive/index.js';
export {
  DEFAULT_PERMISSIONS,
  NEVER_VISIBLE,
  normalPermissionPath,
  parsePermissions,
  permissionPathProblem,
} from './permissions.js';
export type { ParsedPermissions, ToolPermissions } from './permissions.js';
export { SECRET_ENV_NAMES, isSecretEnvName } from '../platform/index.js';
