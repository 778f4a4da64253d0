/**
 * Bundles (seed 002, "Layer 2"): signed manifests listing every file of an app
 * bundle by the SHA-256 of its raw bytes. The domain's only door.
 */
export {
  DEFAULT_BUNDLE_EXCLUDES,
  bundleItemRoots,
  bundleRoots,
  collectBundleFiles,
  isManifestPath,
  walkBundle,
} from './collect.js';
export type { BundleWalk, CollectedFile, WalkOptions } from './collect.js';
export { NODE_MODULES, includeProblem, isNodeModulesPath, lanePathProblem } from './bundle-lane.js';
export { createBundle } from './create.js';
export type { CreateBundleInput, CreatedBundle } from './create.js';
export { hasInlineSignature, hashFiles, itemTypeOfPath, readDigest } from './hash-files.js';
export type { HashedFile, ProgressFn, ReadDigest } from './hash-files.js';
export { bundlesDir, mayHaveBundlesFor } from './bundles-dir.js';
export { listBundles, listManifestPaths } from './list.js';
export type { ListedBundle, ManifestLocation } from './list.js';
export { MAX_MANIFEST_BYTES, parseManifest, parseManifestWith } from './manifest-parse.js';
export type { ParseManifestOptions } from './manifest-parse.js';
export { bundleManifestPath, comparePaths, manifestPathProblem } from './manifest-path.js';
export { manifestScopeProblem } from './manifest-scope.js';
export { serializeManifest } from './manifest-serialize.js';
export { MANIFEST_FILE } from './types.js';
export type { BundleInfo, BundleManifest, ManifestEntry } from './types.js';
export { assertBundleOk, verifyBundle } from './verify.js';
export type { BundleFileReport, BundleReport, ManifestCheck, VerifyBundleInput } from './verify.js';
export { BUNDLER_ACTIONS, reportJson, runBundlerAction } from './actions.js';
export type { BundlerAction, BundlerParams, BundlerResult } from './actions.js';
export { findBundlesFor } from './bundle-of.js';
export type { BundleCoverage, BundleLookup, RefusedManifest } from './bundle-of.js';
export { VerifiedManifestCache, verifiedManifest } from './manifest-cache.js';
export type { ManifestCacheEntry, VerifiedManifest } from './manifest-cache.js';
export { MAX_DEPENDENCY_BYTES, verifyDependency } from './verified-loader.js';
export type { VerifiedDependencyResult, VerifyDependencyOptions } from './verified-loader.js';
export { claimConflict, folderClaimed, readFolderClaims } from './folder-claims.js';
export {
  assertFoldersOwned,
  findForeignFile,
  folderOccupied,
  foldersReached,
  readOwnedFiles,
} from './folder-owners.js';
export type { ForeignFile, OwnedBytes } from './folder-owners.js';
export type { FolderClaim } from './folder-claims.js';
