import { isRyeError } from '../errors/index.js';
import { execute, type ExecuteResult } from '../executor/index.js';
import { isReservedId, parseItemId } from '../items/index.js';
import { allowed, allowedViaChain, requireAllowed } from '../capabilities/index.js';
import { channelHandler } from './channel-handler.js';
import {
  BUNDLER_TOOL_ID,
  SANDBOXES_TOOL_ID,
  bundlerInProcess,
  sandboxesInProcess,
} from './in-process-tools.js';
import type { OperationContext, OperationRunner } from './context.js';

export interface ExecuteToolOptions {
  readonly parameters: Record<string, unknown>;
  readonly dryRun: boolean;
  readonly frozen?: boolean;
  /** Runs the tool's nested calls on the operation channel (`runOperation`). */
  readonly nested: OperationRunner;
}

/**
 * Run a tool under the call's authority. The entry id is checked first; only
 * when it is not granted does the chain rule (THREADS.md §3) apply, once the
 * executor has built and verified the chain and before anything is planned or
 * spawned. A tool under `rye/` always needs its own grant, checked first.
 * Before the chain rule admits a tool, every refusal is CAPABILITY_DENIED.
 *
 * @throws RyeError ITEM_ID_INVALID, CAPABILITY_DENIED, and whatever `execute` throws
 */
export async function executeTool(
  ctx: OperationContext,
  toolId: string,
  options: ExecuteToolOptions,
): Promise<ExecuteResult> {
  // A JavaScript caller gets no type check: without a runner, the tool's first
  // nested call would fail inside the run; refuse before anything is read.
  if (typeof options.nested !== 'function')
    throw new TypeError(
      'executeTool needs options.nested: runOperation (or runOperationLazily) from rye-ts/ops',
    );
  parseItemId(toolId);
  const direct = allowed(ctx.authority.caps, 'execute', 'tool', toolId);
  // The chain rule never admits a reserved id, so it is refused before resolving:
  // denied whether or not it exists (no existence oracle, and the denial counts).
  if (!direct && isReservedId(toolId)) requireAllowed(ctx.authority, 'execute', 'tool', toolId);
  // Until the chain rule has admitted the tool, no refusal but the denial is
  // answered: a missing, unsigned or edited tool the caller was not granted
  // is CAPABILITY_DENIED, with no path or hash (and the denial counts).
  let admitted = direct;
  try {
    return await run(ctx, toolId, options, direct, () => {
      admitted = true;
    });
  } catch (error) {
    // A bug is reported as one, never dressed up as a denial.
    if (!admitted && isRyeError(error)) requireAllowed(ctx.authority, 'execute', 'tool', toolId);
    throw error;
  }
}

function run(
  ctx: OperationContext,
  toolId: string,
  options: ExecuteToolOptions,
  direct: boolean,
  onAdmitted: () => void,
): Promise<ExecuteResult> {
  return execute({
    spaces: ctx.spaces,
    toolId,
    params: options.parameters,
    dryRun: options.dryRun,
    env: ctx.env,
    ...(ctx.signal === undefined ? {} : { signal: ctx.signal }),
    ...(ctx.clock === undefined ? {} : { clock: ctx.clock }),
    ...(options.frozen === undefined ? {} : { frozen: options.frozen }),
    sandbox: {
      ...(ctx.sandbox === undefined ? {} : { mode: ctx.sandbox }),
      ...(ctx.authority.sandbox === undefined ? {} : { grants: ctx.authority.sandbox }),
      // Opened only when the tool declares `rye:`; answered under this call's authority.
      channel: channelHandler(ctx, options.nested),
    },
    inProcess: {
      [BUNDLER_TOOL_ID]: bundlerInProcess,
      [SANDBOXES_TOOL_ID]: sandboxesInProcess,
      ...ctx.inProcessTools,
    },
    ...(direct
      ? {}
      : {
          authorizeChain: (chainIds: readonly string[]) => {
            if (!allowedViaChain(ctx.authority.caps, chainIds, toolId))
              requireAllowed(ctx.authority, 'execute', 'tool', toolId);
            onAdmitted();
          },
        }),
  });
}
