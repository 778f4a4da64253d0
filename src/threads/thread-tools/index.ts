import { THREAD_TOOL_PREFIX, type OperationContext } from '../ops/index.js';
import { cancelThread } from './cancel-thread.js';
import { readTranscriptTool } from './read-transcript.js';
import { threadStatusTool } from './thread-status.js';
import { waitThreads } from './wait-threads.js';

export { requireReachable } from './reach.js';

/**
 * One virtual tool under `rye/agent/threads/` (THREADS.md §11). It runs in
 * process, never through the executor. The door (`runOperation`) has already
 * checked the caller may execute the tool id when `caller` is absent (the
 * operator: CLI, MCP); when a thread's model calls it, `caller` is that
 * thread's id (its live tree is `ctx.tree`) and the handler must reach only
 * its own descendants (`requireReachable` does that for one id). `params` is
 * the call's raw `parameters`: the handler parses it strictly
 * (OPERATION_INPUT_INVALID). The answer becomes the result's `data`; a
 * refusal is a thrown RyeError.
 */
export type ThreadToolHandler = (
  ctx: OperationContext,
  params: unknown,
  caller?: string,
) => Promise<unknown>;

export { THREAD_TOOL_PREFIX };

/** The thread tools by id. To add one: one entry here and its own file. */
export const THREAD_TOOLS: Readonly<Record<string, ThreadToolHandler>> = {
  'rye/agent/threads/thread_status': threadStatusTool,
  'rye/agent/threads/read_transcript': readTranscriptTool,
  'rye/agent/threads/wait_threads': waitThreads,
  'rye/agent/threads/cancel_thread': cancelThread,
};

/** The handler for a tool id, or undefined when it is not a thread tool. */
export function threadToolOf(toolId: string): ThreadToolHandler | undefined {
  return toolId.startsWith(THREAD_TOOL_PREFIX) && Object.hasOwn(THREAD_TOOLS, toolId)
    ? THREAD_TOOLS[toolId]
    : undefined;
}

export type { ThreadCaller, ThreadHandle } from './caller.js';
export { FAIL_FAST_STATUSES, waitThreads } from './wait-threads.js';
export type { WaitAnswer } from './wait-threads.js';
export { cancelThread } from './cancel-thread.js';
export { waitEntry } from './wait-entry.js';
