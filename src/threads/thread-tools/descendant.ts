import { RyeError } from '../../errors/index.js';
import { tryParseThreadId } from '../../ids/index.js';
import type { OperationContext } from '../../ops/index.js';
import type { ThreadCaller, ThreadHandle } from '../loop/thread-caller.js';

/**
 * The calling thread's in-process tree. wait_threads and cancel_thread act
 * only inside a thread, on its own live descendants (THREADS.md §11); other
 * callers go through `rye thread wait|cancel`.
 *
 * @throws RyeError CAPABILITY_DENIED
 */
export function requireCaller(ctx: OperationContext, tool: string): ThreadCaller {
  if (ctx.tree !== undefined) return ctx.tree;
  throw new RyeError(
    'CAPABILITY_DENIED',
    `Cannot run rye/agent/threads/${tool} here: it acts only inside a thread, on that thread's own descendants`,
    { required: `rye.execute.tool.rye/agent/threads/${tool}`, source: ctx.authority.source },
  );
}

/**
 * The caller's descendant with this id. Anything else (a malformed id, the
 * caller itself, an ancestor, a sibling, another tree, an unknown id) is
 * refused alike, so the answer says nothing about threads outside the subtree.
 *
 * @throws RyeError CAPABILITY_DENIED
 */
export function requireDescendant(
  caller: ThreadCaller,
  threadId: string,
  tool: string,
): ThreadHandle {
  const handle = tryParseThreadId(threadId) === undefined ? undefined : caller.descendant(threadId);
  if (handle !== undefined) return handle;
  throw new RyeError(
    'CAPABILITY_DENIED',
    `Cannot ${tool} thread ${threadId.slice(0, 80)}: it is not a descendant of thread ${caller.threadId}`,
    { thread: threadId.slice(0, 80), caller: caller.threadId },
  );
}
