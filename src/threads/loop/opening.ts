/**
 * The runner's opening phase: a new thread's first events (`thread_created`,
 * `system_prompt`, its first `cognition_in`) and first message; or a resumed
 * thread's rebuilt conversation and totals taken up, with its new message
 * (THREADS.md §9, §10 step 9).
 */
import type { Message } from '../conversation/index.js';
import { admittedHookRecord } from '../directive/index.js';
import type { DirectivePlan } from '../admission/index.js';
import type { ThreadRecord } from '../store/index.js';
import type { ThreadCost } from '../transcript/index.js';
import type { RunContext } from './run-context.js';

/** Where a resumed thread picks up: its rebuilt conversation and totals, and the new message. */
export interface ResumePoint {
  readonly messages: readonly Message[];
  readonly cost: ThreadCost;
  readonly message: string;
  /** The first turn number no attempt key used yet (keys are unique forever). */
  readonly nextTurnKey: number;
}

/** Open a new thread of `plan` with `record`'s place in its tree. */
export function openThread(ctx: RunContext, plan: DirectivePlan, record: ThreadRecord): void {
  ctx.writer.append('thread_created', {
    directive: {
      id: plan.directive.id,
      content_sha256: plan.directive.content_sha256,
      coverage: 'full',
    },
    inputs: plan.inputs,
    parent: record.parent,
    tree: record.tree,
    depth: record.depth,
    caps: plan.capabilities,
    caps_dropped: plan.caps_dropped,
    token: record.token,
    limits: { ...plan.limits },
    model: plan.model,
    hooks_admitted: plan.hooks.map(admittedHookRecord),
  });
  ctx.writer.append('system_prompt', { text: plan.system_prompt });
  ctx.writer.append('cognition_in', { content: plan.first_message });
  ctx.body.begin(plan.first_message);
  ctx.progress(
    `thread ${ctx.threadId} started (${plan.model?.provider}/${plan.model?.model} at ${plan.model?.host})`,
  );
}

/** Take up a resumed thread at `resume`; returns the turn number its next attempt keys use. */
export function reopenThread(ctx: RunContext, resume: ResumePoint): number {
  ctx.cost.restore(resume.cost);
  ctx.writer.append('cognition_in', { content: resume.message });
  ctx.body.resume(resume.messages, resume.message);
  ctx.progress(`thread ${ctx.threadId} resumed at turn ${ctx.cost.value.turns + 1}`);
  return resume.nextTurnKey;
}
