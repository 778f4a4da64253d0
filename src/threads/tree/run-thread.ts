import { newThreadId, systemClock, systemRandom } from '../../ids/index.js';
import { rememberEnvSecrets } from '../../platform/index.js';
import {
  RegistryDb,
  acquireTreeLock,
  checkThreadDir,
  registryDbPath,
  threadPaths,
  treeLockPath,
  writeThreadRecord,
} from '../store/index.js';
import { TranscriptWriter, macKeyring } from '../transcript/index.js';
import { watchCancelRequests } from '../loop/cancel-watch.js';
import { spawnChild } from './spawn-child.js';
import { startNode } from './start-node.js';
import { mintRootToken } from './thread-token.js';
import { ThreadTree } from './thread-tree.js';
import { pricingOf, recordOf } from '../loop/admission-facts.js';
import { type RunThreadInput } from '../loop/thread-run.js';
import { type ThreadResult } from '../loop/thread-result.js';

/**
 * Run a directive as the root thread of a tree (THREADS.md §2, §5, §6, §9,
 * §11): admit it (thread id, a token signed by the user key with an
 * in-memory holder key, signed thread.json, registry row, ledger account with
 * the spend limit, `thread_created`/`system_prompt`/`cognition_in`), then
 * loop CheckingLimits → Reserving → CallingProvider → Settling → Dispatching
 * until it completes, fails, hits a limit or is refused a reservation. Its
 * children run in this process, in the same tree; it returns once every one
 * of them has ended. Each event is written before the step it records acts;
 * a signed checkpoint seals every turn and the terminal event.
 *
 * Refusals before anything is written: BUDGET_UNPRICED_MODEL (finite spend,
 * no prices), PROVIDER_MODEL_UNKNOWN (no model), THREAD_LOCKED. Everything
 * after admission ends the thread with a status instead of throwing:
 * THREAD_LIMIT_EXCEEDED, BUDGET_DENIED, BUDGET_BOUND_VIOLATED,
 * THREAD_DENIED_REPEATEDLY, THREAD_NO_RETURN, PROVIDER_* failures.
 */
export async function runThread(
  input: RunThreadInput & {
    /** Told the thread id once the thread is admitted (a detached worker reports it). */
    readonly onAdmitted?: (threadId: string) => void;
    /** The id to admit it under (a rebase names its successor first); default: a new one. */
    readonly threadId?: string;
  },
): Promise<ThreadResult> {
  const { plan } = input;
  const clock = input.clock ?? systemClock;
  const random = input.random ?? systemRandom;
  const { pricing, limitNanos } = pricingOf(plan);
  const threadId = input.threadId ?? newThreadId(plan.directive.id, clock, random);
  const holder = input.ops.authority.holder;
  // A provider echoing its key (in an error, say) never gets it into the transcript.
  rememberEnvSecrets(input.ops.env);
  const paths = threadPaths(input.projectRoot, threadId);
  checkThreadDir(input.projectRoot, paths, true);
  const sinceMs = Date.now();
  const lock = acquireTreeLock(treeLockPath(input.projectRoot, threadId));
  const registry = RegistryDb.open(registryDbPath(input.projectRoot), { clock });
  const budget = input.budget ?? registry.budgetStore();
  const writer = TranscriptWriter.open({
    path: paths.transcript,
    artifactsDir: paths.artifacts,
    thread: threadId,
    clock,
    head: null,
    mac: macKeyring(input.signer),
  });
  let stopWatching = (): void => undefined;
  try {
    const tree = new ThreadTree({
      projectRoot: input.projectRoot,
      registry,
      budget,
      signer: input.signer,
      clock,
      random,
      spawn: spawnChild,
    });
    const duration = plan.limits.duration_seconds;
    const deadline = duration === 0 ? undefined : clock.now() + duration * 1000;
    const token = mintRootToken(tree, threadId, plan.capabilities, deadline);
    const record = recordOf(plan, threadId, clock, {
      tree: threadId,
      parent: null,
      depth: 0,
      token: { jti: token.jti, exp: token.exp },
    });
    const node = startNode({ tree, threadId, parent: null, token, input, pricing, record, writer });
    await writeThreadRecord(paths, record, input.signer, new Date(clock.now()));
    registry.insertThread({
      threadId,
      treeId: threadId,
      parentId: null,
      directiveId: plan.directive.id,
      status: 'running',
      ...(holder?.kind === 'ceiling' ? { ceilingJti: holder.jti } : {}),
    });
    registry.setJti(threadId, token.jti);
    await budget.openAccount({ threadId, treeId: threadId, parentThreadId: null, limitNanos });
    input.onAdmitted?.(threadId);
    const run = node.run;
    stopWatching = watchCancelRequests(registry, threadId, (why) => run.cancel(why), { sinceMs });
    node.done = run.run(paths);
    node.result = await node.done;
    return node.result;
  } finally {
    stopWatching();
    writer.close();
    registry.close();
    lock.release();
  }
}
