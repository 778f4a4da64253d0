import { isRyeError } from '../../errors/index.js';
import type { LimitHit } from '../loop/limits-check.js';
import type { SpawnOutcome, ThreadLinks } from '../loop/tree-links.js';
import type { ThreadResult } from '../loop/thread-result.js';
import type { ThreadRun } from '../loop/thread-run.js';
import { sealToken, verifyPresented } from '../../capabilities/index.js';
import { errorResult, type ExecuteInput, type OperationResult } from '../../ops/index.js';
import type { ThreadHandle } from '../loop/thread-caller.js';
import { waitEntry } from '../loop/wait-entry.js';
import type { ThreadToken } from './thread-token.js';
import type { ThreadTree, TreeNode } from './thread-tree.js';

/**
 * A thread's links into its tree: token, thread tools' caller, spawning,
 * settling children. The thread's token lives only here, in rye's own
 * process: no tool gets it in its environment (tools reach rye through the
 * operation channel), and it is presented sealed by the thread's own holder
 * key for this project's audience, sealed once (Ed25519 seals are
 * deterministic) and verified before every operation.
 */
export function linksFor(
  tree: ThreadTree,
  node: () => TreeNode,
  run: ThreadRun,
  token: ThreadToken,
): ThreadLinks {
  const threadId = run.threadId;
  const presented = sealToken(token.token, token.holder, tree.trust.audience);
  return {
    caller: {
      threadId,
      descendant: (id) => {
        const found = tree.descendantOf(threadId, id);
        return found === undefined ? undefined : handleOf(found);
      },
      remainingMs: () =>
        run.deadline === undefined ? undefined : Math.max(0, run.deadline - tree.clock.now()),
      signal: run.signal,
    },
    presentToken: () => {
      verifyPresented(
        presented,
        tree.trust,
        (jti) => tree.registry.byJti(jti),
        tree.clock.now(),
        threadId,
      );
    },
    spawn: (input) => spawnCall(tree, run, input),
    beforeFinalize: (status) => settleChildren(tree, node(), status),
  };
}

/** A node as the thread tools see it. */
export function handleOf(node: TreeNode): ThreadHandle {
  return {
    threadId: node.threadId,
    get done() {
      return node.done;
    },
    get result() {
      return node.result;
    },
    cancel: (reason) => node.run.cancel(reason),
  };
}

/**
 * A parent ending with children still running cancels them (reason
 * `parent_<status>`), cascading down, and waits for them: a finished
 * thread's whole subtree has finished. Then it records each child's
 * `child_settled`, in the order it spawned them, just before its terminal
 * event: written as each child ended, their order would be the order
 * parallel children happened to finish in, and a rerun with the same clock
 * and ids would not write the same bytes (THREADS.md §15). When each child
 * ended is in its own transcript. A child started after this (a hook on
 * `after_complete`) is recorded by its own transcript and the registry edge.
 */
async function settleChildren(tree: ThreadTree, node: TreeNode, status: string): Promise<void> {
  const children = node.children.map((id) => tree.node(id)).filter((c) => c !== undefined);
  for (const child of children)
    if (child.result === undefined) child.run.cancel(`parent_${status}`);
  const settled = await Promise.all(
    children.map(async (c) => ({ child: c, result: await c.done })),
  );
  for (const { child, result } of settled)
    node.run.writer.append('child_settled', {
      child: child.threadId,
      status: result.status,
      cost_nanos: child.run.cost.spend_nanos,
      ...(result.outputs === undefined ? {} : { outputs: result.outputs }),
    });
}

async function spawnCall(
  tree: ThreadTree,
  run: ThreadRun,
  input: ExecuteInput,
): Promise<SpawnOutcome> {
  const mode = input.thread ?? 'wait';
  try {
    const child = await tree.spawn(run, {
      directiveId: input.item_id,
      inputs: input.inputs ?? {},
      edge: 'spawn',
      mode,
    });
    if (child.result === undefined)
      return {
        result: {
          status: 'success',
          item_id: input.item_id,
          thread_id: child.threadId,
          data: {
            thread_id: child.threadId,
            caps_dropped: child.caps_dropped,
            limits: child.limits,
          },
        },
      };
    return { result: childResult(input.item_id, child.result) };
  } catch (error) {
    if (!isRyeError(error)) throw error;
    const limit = error.details as Partial<LimitHit> | undefined;
    return {
      result: errorResult(error, input.item_id),
      ...(error.code === 'THREAD_LIMIT_EXCEEDED' &&
      (limit?.limit === 'spawns' || limit?.limit === 'depth')
        ? { limit: limit as LimitHit }
        : {}),
    };
  }
}

/** What `thread: "wait"` answers: the child's outputs, or its failure as an error result. */
export function childResult(itemId: string, result: ThreadResult): OperationResult {
  const data = waitEntry(result);
  if (result.status === 'completed' || result.status === 'failed')
    return { status: 'success', item_id: itemId, thread_id: result.thread_id, data };
  return {
    status: 'error',
    item_id: itemId,
    error: {
      code: result.error?.code ?? 'THREAD_CANCELLED',
      message: `Child thread ${result.thread_id} ended ${result.status}${result.error === undefined ? '' : `: ${result.error.message}`}`,
      details: data,
    },
  };
}
