import { RyeError, isRyeError } from '../../errors/index.js';
import type { ModelPricing } from '../budget/index.js';
import { publicCost, type ThreadResult } from '../loop/thread-result.js';
import { ThreadRun, type ResumePoint, type RunThreadInput } from '../loop/thread-run.js';
import type { ThreadPaths, ThreadRecord } from '../store/index.js';
import { ZERO_COST, type TranscriptWriter } from '../transcript/index.js';
import { treeHookHost } from './hook-host.js';
import { linksFor } from './thread-links.js';
import type { ThreadToken } from './thread-token.js';
import { bindRun, type ThreadTree, type TreeNode } from './thread-tree.js';

/** A thread admitted into a tree, about to run. */
export interface NodeStart {
  readonly tree: ThreadTree;
  readonly threadId: string;
  readonly parent: TreeNode | null;
  readonly token: ThreadToken;
  readonly input: RunThreadInput;
  readonly pricing: ModelPricing;
  readonly record: ThreadRecord;
  readonly writer: TranscriptWriter;
  /** The parent's absolute deadline, inherited (epoch ms). */
  readonly deadline?: number;
  /** Continue a rebuilt thread (a resumed root). */
  readonly resume?: ResumePoint;
}

/** Build the thread's run and its node, linked into the tree (nothing runs yet). */
export function startNode(start: NodeStart): TreeNode {
  const { tree, threadId, token } = start;
  // The links need the node, and the node needs the run: the links read it once it exists.
  const ref: { node?: TreeNode } = {};
  const input: RunThreadInput =
    start.input.hookHost === undefined
      ? { ...start.input, hookHost: (run) => treeHookHost(tree, run) }
      : start.input;
  const run = new ThreadRun(input, {
    threadId,
    clock: tree.clock,
    pricing: start.pricing,
    registry: tree.registry,
    budget: tree.budget,
    record: start.record,
    writer: start.writer,
    ...(start.deadline === undefined ? {} : { inheritedDeadline: start.deadline }),
    ...(start.resume === undefined ? {} : { resume: start.resume }),
    links: (self) => linksFor(tree, () => ref.node as TreeNode, self, token),
  });
  const node: TreeNode = {
    threadId,
    parentId: start.parent?.threadId ?? null,
    depth: start.record.depth,
    run,
    holder: token.holder,
    token: token.token,
    children: [],
    pendingSpawns: 0,
    result: undefined,
    done: Promise.resolve(notStarted(threadId)),
  };
  ref.node = node;
  tree.add(node);
  bindRun(run, tree, node);
  return node;
}

/**
 * Run a child node to its end: its result is recorded on the node, its
 * transcript closed and its ledger account closed (an unspent reservation is
 * released, THREADS.md §6). The parent records the settlement before its own
 * terminal event (settleChildren). Never rejects: a runner bug ends the child
 * `error`.
 */
export function runChild(node: TreeNode, paths: ThreadPaths): Promise<ThreadResult> {
  const { run } = node;
  node.done = run
    .run(paths)
    .catch((error: unknown) => crashed(node.threadId, error))
    .then(async (result) => {
      node.result = result;
      run.writer.close();
      await run.budget.close(node.threadId).catch(() => undefined);
      return result;
    });
  return node.done;
}

function crashed(threadId: string, error: unknown): ThreadResult {
  const e = isRyeError(error)
    ? error
    : new RyeError('INTERNAL_ERROR', `The thread runner failed: ${String(error)}`, {});
  return {
    ok: false,
    status: 'error',
    thread_id: threadId,
    error: { code: e.code, message: e.message },
    cost: publicCost(ZERO_COST),
  };
}

function notStarted(threadId: string): ThreadResult {
  return crashed(threadId, new RyeError('INTERNAL_ERROR', 'the thread never started', {}));
}
