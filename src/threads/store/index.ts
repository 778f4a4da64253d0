export {
  ARTIFACTS_DIR,
  RECORD_FILE,
  REGISTRY_DB_FILE,
  TRANSCRIPT_FILE,
  TREE_LOCK_FILE,
  checkThreadDir,
  registryDbPath,
  threadPaths,
  threadsRoot,
  treeLockPath,
} from './layout.js';
export type { ThreadPaths } from './layout.js';
export {
  MAX_RECORD_BYTES,
  THREAD_STATUSES,
  ownTrust,
  readThreadRecord,
  threadRecordSchema,
  writeThreadRecord,
} from './thread-record.js';
export type { ThreadRecord, ThreadStatus } from './thread-record.js';
export { acquireTreeLock, holderAlive, processStartTime, readTreeLock } from './tree-lock.js';
export type { LockHolder, TreeLock } from './tree-lock.js';
export { REGISTRY_MIGRATIONS, RegistryDb } from './registry-db.js';
export type { EdgeKind, EdgeRow, JtiRow, ThreadRow } from './registry-db.js';
export { CANCEL_MIGRATIONS, CancelRequests } from './cancel-requests.js';
export type { CancelRequest } from './cancel-requests.js';
export { FINISHED_STATUSES, isLive, markOrphansInterrupted, treeOwnerAlive } from './orphans.js';
export { threadMacKeyring, userMacKeyring } from './user-mac.js';
export { reaches, requireReachable, threadsNamed } from './thread-reach.js';
