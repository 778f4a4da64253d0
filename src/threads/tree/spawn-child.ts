import { RyeError } from '../../errors/index.js';
import type { DirectiveProgram } from '../../items/index.js';
import { authorityOf, compileCaps, parseCapability } from '../../capabilities/index.js';
import { clampLimits, returnSchemaOf, type ResolvedLimits } from '../directive/index.js';
import { newThreadId } from '../../ids/index.js';
import { pricingOf, recordOf } from '../loop/admission-facts.js';
import { limitError } from '../loop/limits-check.js';
import type { ThreadRun } from '../loop/thread-run.js';
import { planDirectiveOperation, type DirectivePlan } from '../admission/index.js';
import type { ProviderClient } from '../providers/index.js';
import { checkThreadDir, threadPaths, writeThreadRecord } from '../store/index.js';
import { TranscriptWriter } from '../transcript/index.js';
import { runChild, startNode } from './start-node.js';
import { mintChildToken } from './thread-token.js';
import type { SpawnRequest, SpawnedChild } from './spawn-request.js';
import { treeOf, type TreeNode } from './thread-tree.js';

/**
 * Start a child thread of a running thread (THREADS.md §11), derived only
 * from the parent's trusted in-memory record: `spawns` and `depth` checked
 * before the child exists; its set the parent's ∩ its directive's (the parent
 * needs `rye.execute.directive.<id>`), `caps_dropped` recorded; its limits
 * clamped to the parent's and its deadline never later; depth + 1; a token
 * block signed by the parent's key; a ledger account under the parent's; its
 * own thread.json and transcript; a `child_spawned` event and an edge in the
 * registry. Cancelling the parent cancels the child.
 *
 * @throws RyeError THREAD_LIMIT_EXCEEDED (`details.limit` spawns|depth),
 *   THREAD_CANCELLED (the parent is ending), THREAD_NESTED_DIRECTIVE (a lone
 *   thread), CAPABILITY_DENIED, INPUTS_INVALID, the load and verification
 *   codes, PROVIDER_MODEL_UNKNOWN, BUDGET_UNPRICED_MODEL, PROVIDER_AUTH_MISSING
 */
export async function spawnChild(parent: ThreadRun, request: SpawnRequest): Promise<SpawnedChild> {
  const bound = treeOf(parent);
  if (bound === undefined)
    throw new RyeError(
      'THREAD_NESTED_DIRECTIVE',
      `Cannot run directive ${request.directiveId} inside thread ${parent.threadId}: it runs without a thread tree`,
      { item_id: request.directiveId },
    );
  const { tree, node } = bound;
  if (parent.signal.aborted || node.result !== undefined)
    throw new RyeError(
      'THREAD_CANCELLED',
      `Cannot start a child of thread ${parent.threadId}: it is ending`,
      { reason: 'parent_ending' },
    );
  const limits = parent.input.plan.limits;
  checkSpawnLimits(limits, parent.cost.spawns + node.pendingSpawns + 1, node.depth + 1);
  node.pendingSpawns += 1;
  let child: TreeNode;
  let plan: DirectivePlan;
  try {
    const ops = {
      ...parent.input.ops,
      authority: authorityOf(
        compileCaps(parent.input.plan.capabilities.map((c) => parseCapability(c))),
        'thread',
        // The child's <sandbox> is met with this bound: never wider than the parent's.
        parent.input.plan.sandbox ?? undefined,
      ),
      signal: parent.signal,
    };
    let program: DirectiveProgram | undefined;
    const planned = await planDirectiveOperation(ops, request.directiveId, request.inputs, {
      onLoaded: (loaded) => (program = loaded.program),
    });
    plan = { ...planned, limits: clampLimits(planned.limits, limits) };
    const { pricing, limitNanos } = pricingOf(plan);
    const client = await clientFor(parent, plan);
    if (parent.signal.aborted)
      throw new RyeError(
        'THREAD_CANCELLED',
        `Cannot start a child of thread ${parent.threadId}: it is ending`,
        {
          reason: 'parent_ending',
        },
      );
    const now = tree.clock.now();
    const own =
      plan.limits.duration_seconds === 0 ? undefined : now + plan.limits.duration_seconds * 1000;
    const deadline =
      parent.deadline === undefined ? own : Math.min(own ?? parent.deadline, parent.deadline);
    const threadId = newThreadId(request.directiveId, tree.clock, tree.random);
    const paths = threadPaths(tree.projectRoot, threadId);
    checkThreadDir(tree.projectRoot, paths, true);
    const parentExp = parent.record.token?.exp;
    if (parentExp === undefined)
      throw new RyeError('INTERNAL_ERROR', 'the parent holds no token', {});
    const token = mintChildToken(tree, node, threadId, plan.capabilities, deadline, parentExp);
    const record = recordOf(plan, threadId, tree.clock, {
      tree: parent.record.tree,
      parent: parent.threadId,
      depth: node.depth + 1,
      token: { jti: token.jti, exp: token.exp },
    });
    const writer = TranscriptWriter.open({
      path: paths.transcript,
      artifactsDir: paths.artifacts,
      thread: threadId,
      clock: tree.clock,
      head: null,
      mac: tree.mac,
    });
    const { onProgress } = parent.input;
    child = startNode({
      tree,
      threadId,
      parent: node,
      token,
      pricing,
      record,
      writer,
      ...(deadline === undefined ? {} : { deadline }),
      input: {
        ...parent.input,
        plan,
        returnSchema: returnSchemaOf(program as DirectiveProgram),
        client,
        signal: parent.signal,
        ...(onProgress === undefined
          ? {}
          : { onProgress: (line: string) => onProgress(`  ${line}`) }),
      },
    });
    await writeThreadRecord(paths, record, tree.signer, new Date(tree.clock.now()));
    tree.registry.insertThread({
      threadId,
      treeId: parent.record.tree,
      parentId: parent.threadId,
      directiveId: request.directiveId,
      status: 'running',
      edge: request.edge,
    });
    tree.registry.setJti(threadId, token.jti);
    await tree.budget.openAccount({
      threadId,
      treeId: parent.record.tree,
      parentThreadId: parent.threadId,
      limitNanos,
    });
    parent.countSpawn();
    parent.writer.append('child_spawned', {
      child: threadId,
      directive: request.directiveId,
      caps_dropped: plan.caps_dropped,
      limits: plan.limits,
    });
    runChild(child, paths);
  } finally {
    node.pendingSpawns -= 1;
  }
  const spawned = {
    threadId: child.threadId,
    caps_dropped: plan.caps_dropped,
    limits: plan.limits,
    done: child.done,
  };
  return request.mode === 'wait' ? { ...spawned, result: await child.done } : spawned;
}

/** @throws RyeError THREAD_LIMIT_EXCEEDED when the next child passes `spawns` or `depth` */
function checkSpawnLimits(limits: ResolvedLimits, spawns: number, depth: number): void {
  if (limits.spawns !== 0 && spawns > limits.spawns)
    throw limitError({ limit: 'spawns', current: spawns, max: limits.spawns });
  if (limits.depth !== 0 && depth > limits.depth)
    throw limitError({ limit: 'depth', current: depth, max: limits.depth });
}

/** The parent's client when the child talks to the same provider host; a new one otherwise. */
async function clientFor(parent: ThreadRun, plan: DirectivePlan): Promise<ProviderClient> {
  const mine = parent.input.plan.model;
  const model = plan.model;
  if (model === null || (mine?.provider === model.provider && mine.host === model.host))
    return parent.input.client;
  const { createProviderClient, selectProvider } = await import('../providers/index.js');
  const selection = await selectProvider(
    parent.input.ops.spaces,
    { provider: model.provider, id: model.model },
    { env: { ...parent.input.ops.env } },
  );
  return createProviderClient(selection, { env: { ...parent.input.ops.env } });
}
