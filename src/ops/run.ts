import { RyeError, hintFor, isRyeError } from '../errors/index.js';
import { errorResult } from './error-result.js';
import type { OperationContext } from './context.js';
import { executeTool } from './execute-tool.js';
import { executeThreadTool } from './execute-thread-tool.js';
import { loadOperation } from './load.js';
import { parseOperationInput } from './parse-input.js';
import { OPERATION_SCHEMAS, type OperationName, type OperationResult } from './schemas.js';
import { searchOperation } from './search.js';
import { signOperation } from './sign.js';

/**
 * The one door of the four operations (THREADS.md §1): parse the input from
 * outside against the operation's schema, check it against the call's
 * authority, run it, and answer in the shape the model, MCP and `--json`
 * share. Refusals come back as `status: "error"` with the project's code;
 * only a bug throws.
 */
export async function runOperation(
  name: OperationName,
  rawInput: unknown,
  ctx: OperationContext,
): Promise<OperationResult> {
  const itemId = itemIdOf(rawInput);
  try {
    switch (name) {
      case 'execute': {
        const input = parseOperationInput(name, OPERATION_SCHEMAS.execute, rawInput);
        if (input.item_type === 'directive') {
          if (ctx.threads === undefined)
            throw new RyeError(
              'THREAD_RUNNER_UNAVAILABLE',
              `Cannot execute directive ${input.item_id}: no thread runner is wired into this operation context`,
            );
          return await ctx.threads.executeDirective(ctx, input);
        }
        if (input.item_type !== 'tool')
          throw new RyeError(
            'OPERATION_INPUT_INVALID',
            'Cannot execute knowledge: only tools and directives run; load knowledge instead',
            {
              operation: name,
              issues: [{ path: 'item_type', message: 'knowledge is loaded, not executed' }],
            },
          );
        const virtual = await executeThreadTool(
          ctx,
          input.item_id,
          input.parameters ?? {},
          input.dry_run === true,
        );
        if (virtual !== undefined) return virtual;
        const result = await executeTool(ctx, input.item_id, {
          nested: runOperation,
          parameters: input.parameters ?? {},
          dryRun: input.dry_run === true,
        });
        if (result.status === 'success')
          return {
            status: 'success',
            item_id: result.item_id,
            data: result.data,
            chain: result.chain,
            metadata: result.metadata,
            ...(result.plan === undefined ? {} : { plan: result.plan }),
          } as OperationResult;
        return {
          status: 'error',
          item_id: result.item_id,
          error: {
            code: result.error?.code ?? 'EXECUTE_TOOL_FAILED',
            message: result.error?.message ?? 'the tool failed',
            ...(result.error?.code === undefined ? {} : { hint: hintFor(result.error.code) }),
            details: { data: result.data, chain: result.chain, metadata: result.metadata },
          },
        };
      }
      case 'search': {
        const input = parseOperationInput(name, OPERATION_SCHEMAS.search, rawInput);
        const results = await searchOperation(ctx, input);
        return { status: 'success', item_id: '', data: { results } };
      }
      case 'load': {
        const input = parseOperationInput(name, OPERATION_SCHEMAS.load, rawInput);
        return { status: 'success', item_id: input.item_id, data: await loadOperation(ctx, input) };
      }
      case 'sign': {
        const input = parseOperationInput(name, OPERATION_SCHEMAS.sign, rawInput);
        const report = await signOperation(ctx, {
          itemType: input.item_type,
          pattern: input.item_id,
          ...(input.source === undefined ? {} : { space: input.source }),
        });
        const failure = report.failed[0];
        if (failure === undefined)
          return { status: 'success', item_id: input.item_id, data: report };
        return {
          status: 'error',
          item_id: input.item_id,
          error: {
            code: failure.code,
            message: `Signed ${report.summary.signed}, failed ${report.summary.failed}: ${failure.item_id}: ${failure.message}`,
            details: report,
          },
        };
      }
    }
  } catch (error) {
    if (isRyeError(error)) return errorResult(error, itemId);
    throw error;
  }
}

function itemIdOf(input: unknown): string | undefined {
  if (typeof input !== 'object' || input === null) return undefined;
  const id = (input as Record<string, unknown>)['item_id'];
  return typeof id === 'string' && id.length <= 512 ? id : undefined;
}
