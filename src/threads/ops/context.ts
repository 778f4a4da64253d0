import type { ErrorCode } from '../../errors/index.js';
import type { InProcessTool } from '../../executor/index.js';
import type { Spaces } from '../../items/index.js';
import type { Authority } from '../../capabilities/index.js';
import type { Clock } from '../../ids/index.js';
import type { ThreadCaller } from '../thread-tools/caller.js';

/** What every operation call runs with: where, under which environment, and under whose authority. */
export interface OperationContext {
  readonly spaces: Spaces;
  /** The caller's environment (tools inherit from it; never a project `.env`). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Checked before anything is read, verified or run. */
  readonly authority: Authority;
  /** Cancels the call (tools in flight are killed, a thread it runs is cancelled). */
  readonly signal?: AbortSignal;
  /** Progress lines of a long call (a directive's thread: turns, calls, running cost). */
  readonly onProgress?: (line: string) => void;
  /**
   * Where the operations read the times they report (a tool run's
   * `duration_ms`); default: the system's monotonic clock. A thread run with
   * an injected clock sets it (THREADS.md §15).
   */
  readonly clock?: Clock;
  /**
   * The thread whose model makes the call, when one does: thread tools then
   * reach only its own descendants (THREADS.md §11). Absent for the operator
   * (CLI, MCP).
   */
  readonly thread?: string;
  /** That thread's in-process tree (its live descendants), for wait_threads and cancel_thread. */
  readonly tree?: ThreadCaller;
  /**
   * `off` only when the operator said so (`--no-sandbox`); absent: tools run
   * sandboxed unless the user config says `sandbox: off`. Never set from a
   * project file, a directive, an MCP argument or a model.
   */
  readonly sandbox?: 'off';
  /**
   * System tools the composition root runs in process, by id (the registry
   * client: `threads` cannot import the registry; cli and mcp wire it). The
   * bundler is wired here, in ops.
   */
  readonly inProcessTools?: Readonly<Record<string, InProcessTool>>;
  /**
   * Told of each request a tool makes on the operation channel, before it
   * runs (a thread records it and counts it toward `tool_calls`); returns a
   * refusal to give the tool instead (a limit reached), or undefined to go on.
   */
  readonly onNestedCall?: (request: {
    readonly op: string;
    readonly input: unknown;
  }) => { readonly code: ErrorCode; readonly message: string } | undefined;
  /** How many operation channels deep this call is: a tool's call through fd 3 is one deeper. */
  readonly channelDepth?: number;
}
