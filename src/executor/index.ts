export { buildChain } from './chain/chain.js';
// A built chain may not be longer than a lockfile can pin.
export { MAX_CHAIN_LENGTH } from '../lockfile/index.js';
export type { BuiltChain } from './chain/chain.js';
export { execute } from './execute.js';
export type { InProcessTool } from './run/in-process.js';
export {
  CHANNEL_OPS,
  MAX_CHANNEL_LINE_BYTES,
  MAX_CHANNEL_REQUESTS,
  serveChannel,
} from './run/channel.js';
export type { ChannelHandler, ChannelOp, ChannelOptions, ChannelRequest } from './run/channel.js';
export { cacheDirOf, clearSnapshots } from './snapshot/snapshot.js';
export { signDotenvText, signProjectDotenv } from './env/dotenv-sign.js';
export type { SignedDotenv } from './env/dotenv-sign.js';
export { LOADER_ENV_NAMES, isLoaderEnvName } from './env/loader-env.js';
export {
  DOTENV_FILE,
  checkDotenvText,
  describeDotenv,
  loadDotenvTrust,
  readProjectDotenv,
} from './env/project-dotenv.js';
export type { ProjectDotenv } from './env/project-dotenv.js';
export { prepareToPin, updateLockfile, verifyLockfiles } from './lock-ports.js';
export type { LockStatus } from '../lockfile/index.js';
export { rootVersion } from './prepare.js';
export type { ChainEntry, ExecuteOptions, ExecuteResult, ExecutionPlan } from './execute.js';
export { PRIMITIVES, mergeChainConfig } from './run/primitive-config.js';
export { killRunningTools } from './primitives/subprocess.js';
export { VerifiedFileCache } from './deps/verify-deps.js';
export type { DepsReport } from './deps/verify-deps.js';
export type {
  AnchorConfig,
  ChainElement,
  EnvConfig,
  InterpreterConfig,
  TemplateVars,
  VerifyDepsConfig,
} from './types.js';
// The sandbox (sandbox/, CONTAINMENT.md): what the layers above use of it.
export {
  daemonRecord,
  effectivePermissions,
  listDaemons,
  meetGrants,
  readSandboxMode,
  stopDaemon,
} from './sandbox/index.js';
export type { SandboxGrants } from './sandbox/index.js';
