export { compileIdGlob, isGlob } from './glob.js';
export { readItemMetadata, signItemFile, verifyItemFile } from './item-files.js';
export type { SignedItem } from './item-files.js';
export { itemCategory, itemName, parseItemId, problemWith } from './item-id.js';
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
