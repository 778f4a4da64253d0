/**
 * The thread tools' ids (THREADS.md §11): a plan offers them to a thread that
 * may start children. Their handlers are `threads/thread-tools`, keyed by
 * exactly these ids.
 */
export const THREAD_TOOL_IDS = [
  'rye/agent/threads/thread_status',
  'rye/agent/threads/read_transcript',
  'rye/agent/threads/wait_threads',
  'rye/agent/threads/cancel_thread',
] as const;

export type ThreadToolId = (typeof THREAD_TOOL_IDS)[number];
