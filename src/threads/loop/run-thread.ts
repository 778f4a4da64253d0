import { RyeError, isRyeError } from '../../errors/index.js';
import {
  parsePricing,
  parseUsd,
  requirePricedForLimit,
  type ModelPricing,
} from '../budget/index.js';
import { newThreadId, systemClock, type Clock } from '../ids/index.js';
import type { DirectivePlan } from '../ops/index.js';
import {
  RegistryDb,
  acquireTreeLock,
  checkThreadDir,
  registryDbPath,
  threadPaths,
  treeLockPath,
  writeThreadRecord,
  type ThreadRecord,
} from '../store/index.js';
import { TranscriptWriter, ZERO_COST } from '../transcript/index.js';
import { ThreadRun, type RunThreadInput } from './thread-run.js';
import { type ThreadResult } from './thread-result.js';

/**
 * Run a directive as a thread (THREADS.md §2, §5, §6, §9): admit it (thread
 * id, signed thread.json, registry row, ledger account with the spend limit,
 * `thread_created`/`system_prompt`/`cognition_in`), then loop CheckingLimits →
 * Reserving → CallingProvider → Settling → Dispatching until it completes,
 * fails, hits a limit or is refused a reservation. Each event is written
 * before the step it records acts; a signed checkpoint seals every turn and
 * the terminal event.
 *
 * Refusals before anything is written: BUDGET_UNPRICED_MODEL (finite spend,
 * no prices), PROVIDER_MODEL_UNKNOWN (no model), THREAD_LOCKED. Everything
 * after admission ends the thread with a status instead of throwing:
 * THREAD_LIMIT_EXCEEDED, BUDGET_DENIED, BUDGET_BOUND_VIOLATED,
 * THREAD_DENIED_REPEATEDLY, THREAD_NO_RETURN, PROVIDER_* failures.
 */
export async function runThread(input: RunThreadInput): Promise<ThreadResult> {
  const { plan } = input;
  const clock = input.clock ?? systemClock;
  const model = plan.model;
  if (model === null)
    throw new RyeError(
      plan.model_error?.code ?? 'PROVIDER_MODEL_UNKNOWN',
      `Cannot run directive ${plan.directive.id}: ${plan.model_error?.message ?? 'no model resolved'}`,
      { item_id: plan.directive.id },
    );
  const spend = parseUsd(plan.limits.spend, 'spend');
  const limitNanos = spend === 0 ? null : spend;
  let pricing: ModelPricing | undefined;
  try {
    pricing = parsePricing(model.pricing, model.model);
  } catch (error) {
    if (!isRyeError(error, 'BUDGET_UNPRICED_MODEL')) throw error;
  }
  requirePricedForLimit(pricing, limitNanos, model.model);
  const threadId = newThreadId(plan.directive.id, clock);
  const paths = threadPaths(input.projectRoot, threadId);
  checkThreadDir(input.projectRoot, paths, true);
  const lock = acquireTreeLock(treeLockPath(input.projectRoot, threadId));
  const registry = RegistryDb.open(registryDbPath(input.projectRoot), { clock });
  const budget = input.budget ?? registry.budgetStore();
  const run = new ThreadRun(input, {
    threadId,
    clock,
    pricing: pricing ?? { input: 0, output: 0 },
    registry,
    budget,
    record: recordOf(plan, threadId, clock),
    writer: TranscriptWriter.open({
      path: paths.transcript,
      artifactsDir: paths.artifacts,
      thread: threadId,
      clock,
      head: null,
    }),
  });
  try {
    await writeThreadRecord(paths, run.record, input.signer, new Date(clock.now()));
    registry.insertThread({
      threadId,
      treeId: threadId,
      parentId: null,
      directiveId: plan.directive.id,
      status: 'running',
    });
    await budget.openAccount({ threadId, treeId: threadId, parentThreadId: null, limitNanos });
    return await run.run(paths);
  } finally {
    run.writer.close();
    registry.close();
    lock.release();
  }
}

function recordOf(plan: DirectivePlan, threadId: string, clock: Clock): ThreadRecord {
  const now = new Date(clock.now()).toISOString();
  return {
    thread_id: threadId,
    tree: threadId,
    parent: null,
    depth: 0,
    directive: {
      id: plan.directive.id,
      space: plan.directive.space,
      content_sha256: plan.directive.content_sha256,
      coverage: 'full',
    },
    inputs: plan.inputs,
    model: plan.model,
    limits: { ...plan.limits },
    caps: [...plan.capabilities],
    caps_dropped: [...plan.caps_dropped],
    token: null,
    hooks_admitted: [],
    status: 'running',
    created_at: now,
    updated_at: now,
    cost: { ...ZERO_COST },
  };
}
