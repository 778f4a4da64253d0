/**
 * Not a turn phase: what the runner needs from the tree that admitted it
 * (tree/ supplies it).
 */
import type { ExecuteInput, OperationResult } from '../../ops/index.js';
import type { ThreadCaller } from './thread-caller.js';
import type { LimitHit } from './limits-check.js';

/** What a child spawn call came to, for the dispatcher. */
export interface SpawnOutcome {
  readonly result: OperationResult;
  /** A `spawns` or `depth` limit the call hit: the thread stops (THREADS.md §5). */
  readonly limit?: LimitHit;
}

/**
 * How a running thread reaches its tree (THREADS.md §4, §11), supplied by the
 * tree that admitted it; a thread without links runs alone, as before.
 */
export interface ThreadLinks {
  /** Who the thread tools act for: the thread, over its own descendants only. */
  readonly caller: ThreadCaller;
  /**
   * Present the thread's token, sealed by its holder key, before an
   * operation: it must still verify and be the running thread's current one.
   * @throws RyeError CAPABILITY_TOKEN_INVALID
   */
  presentToken(): void;
  /** Run `rye_execute` of a directive as a child thread (`thread: wait|spawn`). */
  spawn(input: ExecuteInput): Promise<SpawnOutcome>;
  /** Before the terminal event: end the children still running and record them. */
  beforeFinalize(status: string): Promise<void>;
}
