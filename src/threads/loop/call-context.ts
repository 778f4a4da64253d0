/**
 * The context the runner's tool-call phase runs calls in: the operator's
 * context narrowed to the thread's capabilities and `<sandbox>`, aborted
 * with the thread, reaching only the thread's own descendants (THREADS.md
 * §4, §11); and, per call, its tools' channel requests recorded as
 * `nested_call` events and counted toward `tool_calls` (CONTAINMENT.md §1.7).
 */
import { authorityOf, compileCaps, parseCapability } from '../../capabilities/index.js';
import type { Clock } from '../../ids/index.js';
import type { OperationContext } from '../../ops/index.js';
import type { DirectivePlan } from '../admission/index.js';
import type { ReturnSchema } from '../directive/index.js';
import type { DispatchContext } from './dispatch.js';
import { limitError } from './limits-check.js';
import type { RunContext } from './run-context.js';
import type { ThreadLinks } from './tree-links.js';

/** What a thread's calls are run with, from what it was started with. */
export interface ThreadCallInput {
  readonly ops: OperationContext;
  readonly plan: DirectivePlan;
  readonly returnSchema: ReturnSchema | undefined;
  readonly clock?: Clock;
}

/** The dispatch context of a thread's calls (its hooks' actions run with its `ops`). */
export function threadDispatchOf(
  input: ThreadCallInput,
  threadId: string,
  signal: AbortSignal,
  links: ThreadLinks | undefined,
): DispatchContext {
  const caps = compileCaps(input.plan.capabilities.map((c) => parseCapability(c)));
  return {
    ops: {
      ...input.ops,
      // The thread's tools run narrowed to its <sandbox> (a resumed record may predate it).
      authority: authorityOf(caps, 'thread', input.plan.sandbox ?? undefined),
      signal,
      ...(input.clock === undefined ? {} : { clock: input.clock }),
      // Thread tools then reach only this thread's descendants (THREADS.md §11).
      thread: threadId,
      ...(links === undefined ? {} : { tree: links.caller }),
    },
    offered: new Set(input.plan.tools.map((t) => t.name)),
    returnSchema: input.returnSchema,
    ...(links === undefined
      ? {}
      : {
          presentToken: () => links.presentToken(),
          spawn: async (spawnInput) => ({ ...(await links.spawn(spawnInput)), denied: false }),
        }),
  };
}

/**
 * The dispatch context of call `callId`: `base` with its tools' channel
 * requests recorded under it and counted; past `tool_calls` they are refused.
 */
export function callDispatchOf(
  base: DispatchContext,
  callId: string,
  { writer, cost, limits: { resolved: limits } }: RunContext,
): DispatchContext {
  const onNestedCall: NonNullable<OperationContext['onNestedCall']> = (request) => {
    const input = (
      typeof request.input === 'object' && request.input !== null ? request.input : {}
    ) as Record<string, unknown>;
    const attempts = cost.countToolCall();
    const over = limits.tool_calls !== 0 && attempts > limits.tool_calls;
    const error = over
      ? limitError({ limit: 'tool_calls', current: attempts, max: limits.tool_calls })
      : null;
    writer.append('nested_call', {
      call_id: callId,
      op: request.op,
      item_type: typeof input['item_type'] === 'string' ? input['item_type'] : null,
      item_id: typeof input['item_id'] === 'string' ? input['item_id'].slice(0, 512) : null,
      ...(error === null ? {} : { refused: error.code }),
    });
    return error === null ? undefined : { code: error.code, message: error.message };
  };
  return { ...base, ops: { ...base.ops, onNestedCall } };
}
