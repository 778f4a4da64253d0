/**
 * Not a turn phase: the running thread as its thread tools see it (its
 * own descendants only).
 */
import type { ThreadResult } from './thread-result.js';

/** A live thread of the caller's tree, as the thread tools see it. */
export interface ThreadHandle {
  readonly threadId: string;
  /** Settles with the thread's result when it ends (its completion event); never rejects. */
  readonly done: Promise<ThreadResult>;
  /** The result, once it ended. */
  readonly result: ThreadResult | undefined;
  /** Cancel it and, through it, its descendants and their tool processes. */
  cancel(reason: string): void;
}

/**
 * The thread a thread tool is called by (THREADS.md §11): the tools act on
 * its own descendants only, which are in this process's tree.
 */
export interface ThreadCaller {
  readonly threadId: string;
  /** A descendant of the caller; undefined for any other id (itself, an ancestor, a sibling, unknown). */
  descendant(threadId: string): ThreadHandle | undefined;
  /** What is left of the caller's duration, in ms; undefined when unlimited. */
  remainingMs(): number | undefined;
  /** Aborts when the caller is cancelled. */
  readonly signal: AbortSignal;
}

declare module '../../ops/context.js' {
  interface OperationContext {
    /**
     * The calling thread's in-process tree (its live descendants), for
     * wait_threads and cancel_thread; set by the runner on the context of a
     * thread's own calls. The operations pass it on and never read it.
     */
    readonly tree?: ThreadCaller;
  }
}
