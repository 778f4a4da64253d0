import { isRyeError, type ErrorCode } from '../../errors/index.js';
import { sha256Hex } from '../../integrity/index.js';
import type { DirectiveLimits, DirectiveProgram, ItemType } from '../../items/index.js';
import { planThread, type ThreadPlan } from './plan-thread.js';
import type { ModelForPlan } from './worst-case-plan.js';
import {
  allowed,
  capStrings,
  compileCaps,
  parseCapability,
  requireAllowed,
  type CapSet,
  type CapVerb,
} from '../../capabilities/index.js';
import { enumerateItemFiles } from '../../catalog/index.js';
import { MAX_ITEM_ENUM, type IdOffer } from '../prompt/index.js';
import { loadOperation, type OperationContext } from '../../ops/index.js';
import { THREAD_TOOL_IDS } from './thread-tool-ids.js';
import { plannedToolSandboxes } from './tool-sandboxes.js';

export interface DirectivePlan extends ThreadPlan {
  /** Why no model could be resolved (the plan is still shown, without prices). */
  readonly model_error: { readonly code: ErrorCode; readonly message: string } | null;
  /** A dry run's: the effective sandbox of each tool the grants name (docs/sandbox.md). */
  readonly tool_sandboxes?: Awaited<ReturnType<typeof plannedToolSandboxes>>;
}

export interface PlanDirectiveOptions {
  readonly limitOverrides?: DirectiveLimits;
  /** Receives the verified directive the plan was made from (a spawn needs its program). */
  readonly onLoaded?: (loaded: { content: string; program: DirectiveProgram }) => void;
  /** List each tool's effective sandbox (`--plan`, a dry run); a run's admission skips it. */
  readonly toolSandboxes?: boolean;
}

/**
 * `--plan` and the MCP/thread answer for a directive until the runner exists:
 * check `execute` on it, load it verified (full coverage, a valid program),
 * resolve its model from user and system space only (no key needed), list the
 * ids its grants reach, and render the exact first request.
 *
 * @throws RyeError CAPABILITY_DENIED, load and verification codes, INPUTS_INVALID,
 *   VALIDATION_FAILED, CAPABILITY_INVALID
 */
export async function planDirectiveOperation(
  ctx: OperationContext,
  directiveId: string,
  inputs: unknown,
  options: PlanDirectiveOptions = {},
): Promise<DirectivePlan> {
  requireAllowed(ctx.authority, 'execute', 'directive', directiveId);
  const loaded = await loadOperation(ctx, { item_type: 'directive', item_id: directiveId });
  const program = loaded.metadata['program'] as DirectiveProgram;
  options.onLoaded?.({ content: loaded.content, program });
  let model: ModelForPlan | null = null;
  let modelError: DirectivePlan['model_error'] = null;
  try {
    // Loaded on use: the provider SDKs stay off every path that plans nothing.
    const { selectProvider } = await import('../providers/index.js');
    const selection = await selectProvider(
      ctx.spaces,
      { provider: program.model?.provider, id: program.model?.id, tier: program.model?.tier },
      { env: { ...ctx.env } },
    );
    model = {
      provider: selection.model.provider,
      model: selection.model.model,
      host: selection.endpoint.host,
      context_window: selection.model.info.context_window,
      output_limit: selection.model.info.output_limit,
      pricing: selection.model.info.pricing,
    };
  } catch (error) {
    if (!isRyeError(error)) throw error;
    modelError = { code: error.code, message: error.message };
  }
  const files = enumerateItemFiles(ctx.spaces);
  const plan = planThread({
    directive: {
      id: directiveId,
      space: loaded.space,
      content: loaded.content,
      content_sha256: sha256Hex(loaded.content),
      program,
    },
    inputs,
    authority: ctx.authority,
    ...(options.limitOverrides === undefined ? {} : { limitOverrides: options.limitOverrides }),
    model,
    offer: (caps) => ({
      execute: withThreadTools(caps, offerFor(caps, 'execute', ['tool', 'directive'], files)),
      load: offerFor(caps, 'load', ['tool', 'directive', 'knowledge'], files),
      sign: capStrings(caps).some((c) => c.startsWith('rye.sign.'))
        ? offerFor(caps, 'sign', ['tool', 'directive', 'knowledge'], files)
        : null,
    }),
  });
  if (options.toolSandboxes !== true) return { ...plan, model_error: modelError };
  const caps = compileCaps(plan.capabilities.map((c) => parseCapability(c)));
  const tool_sandboxes = await plannedToolSandboxes(
    ctx.spaces,
    caps,
    plan.sandbox,
    files,
    ctx.sandbox,
  );
  return { ...plan, model_error: modelError, tool_sandboxes };
}

/**
 * A thread that may start children is offered the thread tools (they act on
 * its own descendants only, THREADS.md §11), so an enum does not hide them.
 */
function withThreadTools(caps: CapSet, offer: IdOffer): IdOffer {
  if (offer.ids === null || !capStrings(caps).some((c) => c.startsWith('rye.execute.directive.')))
    return offer;
  const ids = [...new Set([...offer.ids, ...THREAD_TOOL_IDS])];
  return ids.length <= MAX_ITEM_ENUM ? { ...offer, ids } : { ...offer, ids: null };
}

/** The resolvable ids a verb's grants reach: an enum when there are few, else the patterns. */
function offerFor(
  caps: CapSet,
  verb: CapVerb,
  types: readonly ItemType[],
  files: readonly { itemType: ItemType; itemId: string }[],
): IdOffer {
  const ids = new Set<string>();
  for (const f of files)
    if (types.includes(f.itemType) && allowed(caps, verb, f.itemType, f.itemId)) ids.add(f.itemId);
  const patterns = capStrings(caps).filter((c) => c.startsWith(`rye.${verb}.`));
  return { ids: ids.size <= MAX_ITEM_ENUM ? [...ids] : null, patterns };
}
