export type {
  ChainLink,
  LockedElement,
  LockedRoot,
  LockedSpace,
  Lockfile,
  VerifiedDeps,
} from './types.js';
export { MAX_CHAIN_LENGTH, MAX_LOCKFILE_BYTES, parseLockfile } from './parse.js';
export { LOCKFILE_SIGNATURE_FIELD, serializeLockfile } from './serialize.js';
export {
  LOCKFILE_SUFFIX,
  lockfileDir,
  lockfileName,
  readOrder,
  relativePathProblem,
  versionProblem,
  writeDir,
} from './paths.js';
export type { LockfileLocation } from './paths.js';
export {
  findLockfile,
  listLockfiles,
  readLockfileAt,
  removeLockfiles,
  writeLockfile,
} from './store.js';
export type { FoundLockfile, ListedLockfile, ListingError } from './store.js';
export { checkChainPins, compareDeps, lockedSpace, trustedSigner } from './check.js';
export type { LockMismatch, ResolvedElement } from './check.js';
export { ownTrust, readOwnKey, signedByOwnKey } from './own-key.js';
export { findNewerOwnLockfile } from './rollback.js';
export type { NewerLockfile } from './rollback.js';
export { lockfilesAffectedBy } from './affected.js';
export type { AffectedLockfile } from './affected.js';
export {
  checkChainShape,
  checkDeps,
  checkLockfile,
  checkPins,
  lockError,
  relativeToBase,
} from './run-check.js';
export type { DepsSnapshot, LockInUse } from './run-check.js';
export { buildLockfile, saveLockfile } from './pin.js';
export { updateLockfileWith } from './update.js';
export type { PinnableRun, PrepareToPin } from './update.js';
export { verifyLockfilesWith } from './verify.js';
export type { CheckLockfile, LockStatus } from './verify.js';
