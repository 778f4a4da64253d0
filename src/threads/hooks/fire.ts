import { RyeError, isRyeError } from '../../errors/index.js';
import type { JsonValue } from '../../items/index.js';
import { requireAllowed } from '../../capabilities/index.js';
import type { AdmittedHook, ResolvedLimits } from '../directive/index.js';
import { runOperation, type OperationContext } from '../../ops/index.js';
import type { ErrorInfo } from '../transcript/index.js';
import type { HookChildResult, HookHost } from './host.js';

/** How one hook action went (`hook_fired.outcome`). */
export type HookOutcome =
  'ok' | 'failed' | 'denied' | 'skipped_limit' | 'invalid_control' | 'unavailable';

export interface ActionResult {
  readonly outcome: HookOutcome;
  /** What the action answered: a tool's data, a directive's outputs (or `{summary}`). */
  readonly value?: unknown;
  readonly child?: string;
  readonly error?: ErrorInfo;
}

/** The owner as its trusted record has it, for the spawn checks. */
export interface HookLineage {
  readonly depth: number;
  readonly spawns: number;
  readonly limits: ResolvedLimits;
}

export interface ActionContext {
  /** The owner thread's context: its authority, the hooks' signal. */
  readonly ops: OperationContext & { readonly signal: AbortSignal };
  readonly host: HookHost | undefined;
  readonly lineage: HookLineage;
}

/**
 * Run one hook action under its owner's authority, checked at fire time like
 * a model call (a hook is no confused deputy): a `<tool>` through the ops
 * door, a `<directive>` as a hook child through the host after the spawn and
 * depth checks from the owner's record. Never throws a RyeError: every
 * refusal is an outcome.
 */
export async function runHookAction(
  hook: AdmittedHook,
  inputs: Readonly<Record<string, JsonValue>>,
  ctx: ActionContext,
): Promise<ActionResult> {
  const { kind, itemId } = hook.action;
  try {
    // A tool goes through the ops door, which checks its grant as for a model
    // call: the entry id, then the chain rule (a granted runtime covers it).
    if (kind === 'tool') {
      const result = await runOperation(
        'execute',
        { item_type: 'tool', item_id: itemId, parameters: inputs },
        ctx.ops,
      );
      if (result.status === 'success') return { outcome: 'ok', value: result.data };
      const error = { code: result.error.code, message: result.error.message };
      return { outcome: error.code === 'CAPABILITY_DENIED' ? 'denied' : 'failed', error };
    }
    requireAllowed(ctx.ops.authority, 'execute', kind, itemId);
    const refusal = spawnRefusal(ctx.lineage);
    if (refusal !== undefined) throw refusal;
    if (ctx.host === undefined)
      return {
        outcome: 'unavailable',
        error: {
          code: 'THREAD_HOOK_UNAVAILABLE',
          message: `Cannot run hook directive ${itemId}: this process runs no child threads`,
        },
      };
    const child = await ctx.host.runDirective({
      directiveId: itemId,
      inputs,
      edge: 'hook',
      event: hook.event,
      signal: ctx.ops.signal,
    });
    return childResult(child);
  } catch (error) {
    if (!isRyeError(error)) throw error;
    const info = { code: error.code, message: error.message };
    if (error.code === 'CAPABILITY_DENIED') return { outcome: 'denied', error: info };
    if (error.code === 'THREAD_LIMIT_EXCEEDED' || error.code === 'BUDGET_DENIED')
      return { outcome: 'skipped_limit', error: info };
    return { outcome: 'failed', error: info };
  }
}

/**
 * The spawn and depth checks of a hook child, from the owner's record: a
 * self-relaunching hook stops here (THREADS.md §16). Pure.
 */
export function spawnRefusal(lineage: HookLineage): RyeError | undefined {
  const { limits, spawns, depth } = lineage;
  if (limits.spawns !== 0 && spawns >= limits.spawns)
    return limitRefusal('spawns', spawns + 1, limits.spawns);
  if (limits.depth !== 0 && depth + 1 > limits.depth)
    return limitRefusal('depth', depth + 1, limits.depth);
  return undefined;
}

function limitRefusal(limit: string, current: number, max: number): RyeError {
  return new RyeError(
    'THREAD_LIMIT_EXCEEDED',
    `Cannot start a hook child: limit ${limit} reached (${current} of ${max})`,
    { limit, current, max },
  );
}

function childResult(child: HookChildResult): ActionResult {
  const base = { child: child.thread_id };
  if (child.status === 'completed')
    return {
      ...base,
      outcome: 'ok',
      value: child.outputs ?? (child.summary === undefined ? {} : { summary: child.summary }),
    };
  const error = child.error ?? {
    code: 'THREAD_HOOK_FAILED',
    message: `The hook child ended ${child.status}`,
  };
  return {
    ...base,
    outcome: child.status === 'budget_denied' ? 'skipped_limit' : 'failed',
    error: { code: error.code, message: error.message },
  };
}
