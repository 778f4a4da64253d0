import type { ThreadToolHandler } from '../../ops/index.js';
import type { ThreadToolId } from '../admission/index.js';
import { cancelThread } from './cancel-thread-tool.js';
import { readTranscriptTool } from './read-transcript-tool.js';
import { threadStatusTool } from './thread-status-tool.js';
import { waitThreads } from './wait-threads-tool.js';

/** The thread tools by id. To add one: its id in THREAD_TOOL_IDS, one entry here and its own file. */
export const THREAD_TOOLS: Readonly<Record<ThreadToolId, ThreadToolHandler>> = {
  'rye/agent/threads/thread_status': threadStatusTool,
  'rye/agent/threads/read_transcript': readTranscriptTool,
  'rye/agent/threads/wait_threads': waitThreads,
  'rye/agent/threads/cancel_thread': cancelThread,
};

/** The handler for a tool id, or undefined when it is not a thread tool. */
export function threadToolOf(toolId: string): ThreadToolHandler | undefined {
  return Object.hasOwn(THREAD_TOOLS, toolId) ? THREAD_TOOLS[toolId as ThreadToolId] : undefined;
}

export { FAIL_FAST_STATUSES, waitThreads } from './wait-threads-tool.js';
export type { WaitAnswer } from './wait-threads-tool.js';
export { cancelThread } from './cancel-thread-tool.js';
