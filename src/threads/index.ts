/**
 * The threads entry (`rye-ts/threads`, docs/library.md): run a directive as a
 * thread, then resume, cancel, wait for, tail and inspect threads; the budget
 * ledger, transcripts and thread records; the provider a model runs on. It
 * loads the provider SDKs, which the root entry never does.
 *
 * Inside the package nothing imports this file: each part of threads has its
 * own door (threads/<part>/index.ts) and the layers above use those, so a
 * command loads only the parts it uses.
 */

// Root threads, as `rye execute directive` and MCP run them; the port an operation context takes.
export { THREADS_PORT, runRootThread, spawnRootThread, threadAnswer } from './root/index.js';
export type { RootThreadOptions, SpawnRootOptions } from './root/index.js';

// Planning a directive (the `--plan` answer), and running an admitted plan in this process.
export { planDirectiveOperation } from './admission/index.js';
export type { DirectivePlan, PlanDirectiveOptions } from './admission/index.js';
export { runThread } from './tree/index.js';
export type { RunThreadInput, ThreadResult } from './loop/index.js';

// Threads that exist: cancel, wait for, tail, resume, and inspect (list, show, verify, tree).
export {
  cancelThread,
  listThreads,
  resumeThread,
  showThread,
  tailTranscript,
  threadTree,
  verifyThread,
  waitThreads,
} from './control/index.js';
export type {
  CancelOutcome,
  CancelThreadInput,
  ResumeThreadInput,
  TailInput,
  ThreadVerification,
  TreeViewNode,
  WaitResult,
  WaitThreadsInput,
} from './control/index.js';
export type { ThreadOutcome } from './outcome/index.js';

// Thread ids, and the clock and random source a reproducible run is given.
export { newThreadId, parseThreadId, systemClock } from '../ids/index.js';
export type { Clock, RandomSource, ThreadId } from '../ids/index.js';

// A directive at run time: limits, caller inputs, hooks admitted, the return checked.
export {
  DEFAULT_LIMITS,
  admitHooks,
  clampLimits,
  parseLimitOverrides,
  renderSummary,
  resolveInputs,
  resolveLimits,
  returnSchemaOf,
  validateReturn,
} from './directive/index.js';
export type { AdmittedHook, InputValues, ResolvedLimits, ReturnSchema } from './directive/index.js';

// The budget: prices, money, worst cases and the spend ledger's stores.
export {
  chargeForUsage,
  formatUsd,
  memoryBudgetStore,
  openSqliteBudgetStore,
  parsePricing,
  parseUsd,
  planOutputCap,
  worstCase,
} from './budget/index.js';
export type { BudgetStore, ModelPricing, Nanos } from './budget/index.js';

// Transcripts: read, verify, repair, resolve artifacts, rebuild the conversation.
export {
  macKeyring,
  readTranscriptBytes,
  rebuildThread,
  repairTranscript,
  resolveArtifacts,
  splitLines,
  verifyTranscript,
  verifyTranscriptAsync,
} from './transcript/index.js';
export type {
  CheckpointMode,
  MacKeyring,
  RebuiltThread,
  RepairOptions,
  StoredEvent,
  ThreadCost,
  TranscriptLines,
  VerifiedTranscript,
  VerifyTranscriptOptions,
} from './transcript/index.js';

// A thread's folder on disk: its paths, its signed record; the project's registry.db (the rows listThreads gives).
export { RegistryDb, readThreadRecord, threadPaths } from './store/index.js';
export type { ThreadPaths, ThreadRecord, ThreadRow, ThreadStatus } from './store/index.js';

// Providers: which one a model runs on, and its client.
export { createProviderClient, selectProvider } from './providers/index.js';
export type {
  ProviderClient,
  ProviderSelection,
  SelectProviderOptions,
} from './providers/index.js';
