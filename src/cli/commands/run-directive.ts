import { RyeError, isIntegrityCode, type ErrorCode } from '../../errors/index.js';
import type { DirectiveProgram } from '../../items/index.js';
import type { ThreadResult } from '../../threads/loop/index.js';
import type { CommandContext } from '../context.js';
import { emit } from '../report.js';

export interface RunDirectiveOptions {
  readonly caps?: string;
  readonly limit: readonly string[];
}

/**
 * `rye execute directive <id> --inputs …`: run the directive as a thread
 * against its provider. Everything that can be refused without a provider
 * (capabilities, inputs, limits, model, prices, the API key) is refused
 * before anything is written. Exit 0 when the thread completed, 1 when it
 * ended in error or at a limit, 3 when it ended on an integrity refusal.
 *
 * @throws RyeError PROVIDER_AUTH_MISSING (naming the variable), BUDGET_UNPRICED_MODEL,
 *   and the planning codes of planDirectiveOperation
 */
export async function runDirectiveCommand(
  ctx: CommandContext,
  directiveId: string,
  inputs: unknown,
  options: RunDirectiveOptions,
): Promise<number> {
  const { parseLimitOverrides, returnSchemaOf } = await import('../../threads/directive/index.js');
  const { loadOperation, planDirectiveOperation } = await import('../../threads/ops/index.js');
  const { createProviderClient, selectProvider } = await import('../../threads/providers/index.js');
  const { runThread } = await import('../../threads/loop/index.js');
  const { readSigner, sha256Hex } = await import('../../integrity/index.js');
  const { keyDir } = await import('../../items/index.js');
  const { operationContext } = await import('../operation-context.js');
  const ops = operationContext(ctx, options.caps);
  const plan = await planDirectiveOperation(ops, directiveId, inputs, {
    limitOverrides: parseLimitOverrides(options.limit),
  });
  if (plan.model === null)
    throw new RyeError(
      plan.model_error?.code ?? 'PROVIDER_MODEL_UNKNOWN',
      `Cannot run directive ${directiveId}: ${plan.model_error?.message ?? 'its model cannot be resolved'}`,
      { item_id: directiveId },
    );
  const selection = await selectProvider(
    ctx.spaces,
    { provider: plan.model.provider, id: plan.model.model },
    { env: ctx.io.env },
  );
  const client = createProviderClient(selection, { env: ctx.io.env });
  const loaded = await loadOperation(ops, { item_type: 'directive', item_id: directiveId });
  if (plan.directive.content_sha256 !== sha256Hex(loaded.content))
    throw new RyeError(
      'INTEGRITY_HASH_MISMATCH',
      `Cannot run directive ${directiveId}: it changed while it was being admitted`,
      { item_id: directiveId },
    );
  const program = loaded.metadata['program'] as DirectiveProgram;
  const signer = await readSigner(keyDir(ctx.spaces));
  const result = await runThread({
    projectRoot: ctx.spaces.project,
    ops,
    plan,
    returnSchema: returnSchemaOf(program),
    client,
    signer,
    ...(ctx.json ? {} : { onProgress: (line: string) => ctx.io.stderr(`${line}\n`) }),
  });
  emit(ctx, result, resultLines(result));
  return exitCodeOf(result);
}

/** 0 completed; 3 an integrity refusal ended it; 1 anything else. */
export function exitCodeOf(result: ThreadResult): number {
  if (result.status === 'completed') return 0;
  const code = result.error?.code as ErrorCode | undefined;
  return code !== undefined && isKnownIntegrity(code) ? 3 : 1;
}

function isKnownIntegrity(code: ErrorCode): boolean {
  try {
    return isIntegrityCode(code);
  } catch {
    return false;
  }
}

export function resultLines(result: ThreadResult): string[] {
  const c = result.cost;
  return [
    `thread ${result.thread_id}: ${result.status}`,
    ...(result.summary === undefined ? [] : [result.summary]),
    ...(result.outputs === undefined ? [] : [`outputs: ${JSON.stringify(result.outputs)}`]),
    ...(result.error === undefined ? [] : [`error ${result.error.code}: ${result.error.message}`]),
    `cost: ${c.turns} turns, ${c.tokens_in} tokens in, ${c.tokens_out} out, ${c.tool_calls} tool calls, $${c.spend_usd}`,
  ];
}
