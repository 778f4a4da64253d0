export { runThread } from './run-thread.js';
export { MAX_CONSECUTIVE_DENIALS, TOOL_CONCURRENCY } from './thread-run.js';
export type { RunThreadInput } from './thread-run.js';
export type { ThreadResult } from './thread-result.js';
export { publicCost } from './thread-result.js';
export { limitBeforeCall, limitError } from './limits-check.js';
export type { LimitHit } from './limits-check.js';
export { MAX_RESULT_CHARS, resultText } from './result-text.js';
export { OPERATION_TOOLS, RETURN_TOOL, dispatchCall, requiredCapOf } from './dispatch.js';
export type { CallOutcome, DispatchContext, ToolCall } from './dispatch.js';
export { mapInWindow } from './window.js';
export { listThreads, showThread, verifyThread } from './inspect.js';
export type { ThreadVerification } from './inspect.js';
export { resumeThread } from './resume-thread.js';
export type { ResumeThreadInput } from './resume-thread.js';
export { CANCEL_POLL_MS, watchCancelRequests } from './cancel-watch.js';
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
export { endFailedAttempt, refusedStatusOf } from './failed-attempt.js';
export type { ThreadOutcome } from '../outcome/index.js';
export { MAX_TREE_VIEW, threadTree } from './tree-view.js';
export type { TreeViewNode } from './tree-view.js';
