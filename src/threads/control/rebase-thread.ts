import { reopenTranscript } from './reopen-transcript.js';
import { RyeError } from '../../errors/index.js';
import type { DirectiveProgram } from '../../items/index.js';
import { returnSchemaOf } from '../directive/index.js';
import { newThreadId, type Clock, type RandomSource } from '../../ids/index.js';
import { loadOperation } from '../../ops/index.js';
import { type DirectivePlan } from '../admission/index.js';
import {
  RegistryDb,
  registryDbPath,
  writeThreadRecord,
  type ThreadPaths,
  type ThreadRecord,
} from '../store/index.js';
import { rebuildThread, type ThreadCost } from '../transcript/index.js';
import type { ResumeThreadInput } from './resume-input.js';
import { runThread } from '../tree/run-thread.js';
import type { ThreadResult } from '../loop/thread-result.js';

/**
 * `resume --rebase` (THREADS.md §10 step 3): the directive or its capability
 * set changed since the thread was admitted, and the operator chose to go on
 * under the new one. The old thread is verified and repaired like any resume,
 * then ends `continued` with `thread_continued{successor}` (sealed, its cost
 * kept); a successor is admitted under the current directive and set with the
 * same inputs, linked by a `continuation` edge, and runs with its own
 * transcript, ledger account and cost. Its first message names the thread it
 * continues and carries the operator's message; the old conversation is not
 * replayed under the new directive. Only a root rebases: a child's set is
 * bound to its parent's, which is not running to clamp it.
 *
 * Called with the old thread's tree lock held, which stays held while the
 * successor runs, so the old thread cannot be resumed meanwhile.
 *
 * @throws RyeError THREAD_RESUME_PINNED (a child thread), TRANSCRIPT_TAMPERED,
 *   PROVIDER_MODEL_UNKNOWN, PROVIDER_AUTH_MISSING — all before anything is written
 */
export async function rebaseThread(args: {
  readonly input: ResumeThreadInput;
  readonly record: ThreadRecord;
  readonly plan: DirectivePlan;
  readonly paths: ThreadPaths;
  readonly clock: Clock;
  readonly random: RandomSource;
}): Promise<ThreadResult> {
  const { input, record, plan, paths, clock, random } = args;
  if (record.parent !== null)
    throw new RyeError(
      'THREAD_RESUME_PINNED',
      `Cannot rebase thread ${paths.threadId}: it is a child of ${record.parent}, whose capabilities bound it; rebase its root instead`,
      { thread: paths.threadId, parent: record.parent },
    );
  if (plan.model === null)
    throw new RyeError(
      plan.model_error?.code ?? 'PROVIDER_MODEL_UNKNOWN',
      `Cannot rebase thread ${paths.threadId}: ${plan.model_error?.message ?? 'no model'}`,
      { thread: paths.threadId },
    );
  const client = await input.client(plan);
  const loaded = await loadOperation(input.ops, {
    item_type: 'directive',
    item_id: plan.directive.id,
  });
  const returnSchema = returnSchemaOf(loaded.metadata['program'] as DirectiveProgram);
  const { writer, events } = reopenTranscript(paths, {
    trust: input.trust,
    signer: input.signer,
    clock,
  });
  const successor = newThreadId(plan.directive.id, clock, random);
  let cost: ThreadCost;
  try {
    cost = rebuildThread(events).cost;
    writer.append('thread_continued', { successor, cost });
    writer.checkpoint(input.signer);
  } finally {
    writer.close();
  }
  const now = new Date(clock.now());
  await writeThreadRecord(
    paths,
    { ...record, status: 'continued', updated_at: now.toISOString(), cost },
    input.signer,
    now,
  );
  const registry = RegistryDb.open(registryDbPath(input.projectRoot), { clock });
  try {
    registry.setStatus(paths.threadId, 'continued');
  } finally {
    registry.close();
  }
  const note = `This thread continues thread ${paths.threadId}, whose directive or capabilities changed (it was admitted with sha256 ${record.directive.content_sha256}). The operator's message:\n\n${input.message}`;
  return runThread({
    projectRoot: input.projectRoot,
    ops: input.ops,
    plan: { ...plan, first_message: `${plan.first_message}\n\n${note}` },
    returnSchema,
    client,
    signer: input.signer,
    clock,
    random,
    threadId: successor,
    ...(input.onProgress === undefined ? {} : { onProgress: input.onProgress }),
    ...(input.signal === undefined ? {} : { signal: input.signal }),
    ...(input.hookHost === undefined ? {} : { hookHost: input.hookHost }),
    onAdmitted: (id) => {
      const edges = RegistryDb.open(registryDbPath(input.projectRoot), { clock });
      try {
        edges.addEdge(paths.threadId, id, 'continuation');
      } finally {
        edges.close();
      }
    },
  });
}
