export { sandboxArgv } from './argv.js';
export type { SandboxMount, SandboxPlan } from './argv.js';
export { sandboxEnv, withoutSecrets } from './env.js';
export type { SandboxEnvInput } from './env.js';
export { findBwrap, hostSystemMounts, unavailable } from './host.js';
export { sandboxProgram } from './interpreter.js';
export type { SandboxProgram } from './interpreter.js';
export {
  MAX_OPEN_FILES,
  MAX_PROCESSES,
  limitPrefix,
  makePidsGroup,
  removePidsGroup,
} from './limits.js';
export type { PidsGroup } from './limits.js';
export { readSandboxMode, userConfigPath } from './mode.js';
export type { SandboxMode } from './mode.js';
export { projectMounts } from './mounts.js';
export type { HiddenPaths } from './mounts.js';
export { effectivePermissions, intersectFolders, isInside, meetGrants } from './policy.js';
export type { EffectivePermissions, SandboxGrants } from './policy.js';
export {
  DAEMON_STOP_GRACE_MS,
  daemonRecord,
  daemonRunning,
  daemonsDir,
  listDaemons,
  newDaemonId,
  parseSandboxInfo,
  processIdentity,
  recordDaemon,
  stopDaemon,
} from './daemons.js';
export type { DaemonEntry, DaemonRecord, SandboxInfo } from './daemons.js';
