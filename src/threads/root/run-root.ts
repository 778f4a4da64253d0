import { RyeError } from '../../errors/index.js';
import { readSigner, sha256Hex } from '../../integrity/index.js';
import { keyDir, type DirectiveProgram } from '../../items/index.js';
import { parseLimitOverrides, returnSchemaOf } from '../directive/index.js';
import { runThread } from '../tree/index.js';
import { type ThreadResult } from '../loop/index.js';
import { loadOperation, type OperationContext } from '../../ops/index.js';
import { planDirectiveOperation } from '../admission/index.js';
import { createProviderClient, selectProvider } from '../providers/index.js';

export interface RootThreadOptions {
  /** `--limit k=v` overrides (the directive's limits clamp them). */
  readonly limits?: readonly string[];
  /** Progress lines (turns, calls, running cost). */
  readonly onProgress?: (line: string) => void;
  /** Called once the thread is admitted (record, registry row, ledger account written). */
  readonly onAdmitted?: (threadId: string) => void;
}

/**
 * Run a directive as a root thread under `ops` (THREADS.md §2): the one setup
 * `rye execute directive`, MCP `execute` and the detached worker share. The
 * thread's set is the directive's declared set ∩ `ops.authority`; `ops.signal`
 * cancels it. Everything that can be refused without a provider (capabilities,
 * inputs, limits, model, prices, the API key, a directive edited while being
 * admitted) is refused before anything is written.
 *
 * @throws RyeError PROVIDER_AUTH_MISSING, BUDGET_UNPRICED_MODEL,
 *   INTEGRITY_HASH_MISMATCH, the planning codes of planDirectiveOperation
 */
export async function runRootThread(
  ops: OperationContext,
  directiveId: string,
  inputs: unknown,
  options: RootThreadOptions = {},
): Promise<ThreadResult> {
  const plan = await planDirectiveOperation(ops, directiveId, inputs, {
    limitOverrides: parseLimitOverrides(options.limits ?? []),
  });
  if (plan.model === null)
    throw new RyeError(
      plan.model_error?.code ?? 'PROVIDER_MODEL_UNKNOWN',
      `Cannot run directive ${directiveId}: ${plan.model_error?.message ?? 'its model cannot be resolved'}`,
      { item_id: directiveId },
    );
  const selection = await selectProvider(
    ops.spaces,
    { provider: plan.model.provider, id: plan.model.model },
    { env: ops.env },
  );
  const client = createProviderClient(selection, { env: ops.env });
  const loaded = await loadOperation(ops, { item_type: 'directive', item_id: directiveId });
  if (plan.directive.content_sha256 !== sha256Hex(loaded.content))
    throw new RyeError(
      'INTEGRITY_HASH_MISMATCH',
      `Cannot run directive ${directiveId}: it changed while it was being admitted`,
      { item_id: directiveId },
    );
  const program = loaded.metadata['program'] as DirectiveProgram;
  const signer = await readSigner(keyDir(ops.spaces));
  return runThread({
    projectRoot: ops.spaces.project,
    ops,
    plan,
    returnSchema: returnSchemaOf(program),
    client,
    signer,
    ...(options.onProgress === undefined ? {} : { onProgress: options.onProgress }),
    ...(options.onAdmitted === undefined ? {} : { onAdmitted: options.onAdmitted }),
    ...(ops.signal === undefined ? {} : { signal: ops.signal }),
  });
}
