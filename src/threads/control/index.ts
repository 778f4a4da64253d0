export { listThreads, showThread, verifyThread } from './inspect.js';
export type { ThreadVerification } from './inspect.js';
export { resumeThread } from './resume-thread.js';
export type { ResumeThreadInput } from './resume-input.js';
export {
  CANCEL_WAIT_MS,
  MAX_CANCEL_REASON,
  cancelThread,
  parseCancelReason,
  startCancel,
} from './cancel-thread.js';
export type { CancelAction, CancelOutcome, CancelThreadInput } from './cancel-thread.js';
export { sealCancelled } from './seal-cancelled.js';
export { FAIL_FAST_STATUSES, waitThreads } from './wait-threads.js';
export type { WaitResult, WaitThreadsInput } from './wait-threads.js';
export { TAIL_POLL_MS, tailTranscript } from './tail-transcript.js';
export type { TailInput } from './tail-transcript.js';
export { MAX_TREE_VIEW, threadTree } from './tree-view.js';
export type { TreeViewNode } from './tree-view.js';
