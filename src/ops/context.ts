import type { ErrorCode } from '../errors/index.js';
import type { InProcessTool } from '../executor/index.js';
import type { Spaces } from '../items/index.js';
import type { Authority } from '../capabilities/index.js';
import type { Clock } from '../ids/index.js';
import type { ExecuteInput, OperationName, OperationResult } from './schemas.js';

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
  /**
   * The thread runner (directives, thread tools), wired by the composition
   * root; absent, executing a directive or a thread tool is refused. The
   * threads layer adds `tree`, the calling thread's live descendants, to this
   * interface (threads/tree/caller.ts): the operations never read it.
   */
  readonly threads?: ThreadsPort;
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

/**
 * A thread tool run in process (THREADS.md §11). The door has already checked
 * the operator may execute its id when `caller` is absent (CLI, MCP); when a
 * thread's model calls it, `caller` is that thread's id and the handler must
 * reach only its own descendants. `params` is the call's raw `parameters`,
 * parsed strictly by the handler; the answer becomes the result's `data`, a
 * refusal is a thrown RyeError.
 */
export type ThreadToolHandler = (
  ctx: OperationContext,
  params: unknown,
  caller?: string,
) => Promise<unknown>;

/**
 * What the operations need from the layer above them, the thread runner:
 * `execute` of a directive (plan, run or spawn a thread) and the thread tools
 * under `rye/agent/threads/`. The operations cannot import threads (they sit
 * below it); the composition roots (cli, mcp) wire `threads/root`'s port into
 * the context, and every context a thread derives keeps it.
 */
export interface ThreadsPort {
  /**
   * `execute` on a directive: `dry_run` answers with the plan, `thread:
   * "wait"` runs it as a root thread, `thread: "spawn"` starts it detached.
   */
  executeDirective(ctx: OperationContext, input: ExecuteInput): Promise<OperationResult>;
  /** The handler of a thread tool id, or undefined when the id names none. */
  threadTool(toolId: string): Promise<ThreadToolHandler | undefined>;
}

/**
 * `runOperation`, as a tool's nested calls on the operation channel reach it:
 * handed to the executor's channel by the caller, so the operations' modules
 * import each other in one direction only.
 */
export type OperationRunner = (
  name: OperationName,
  rawInput: unknown,
  ctx: OperationContext,
) => Promise<OperationResult>;
