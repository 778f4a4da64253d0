import { resolve } from 'node:path';
import { RyeError, errorJson, exitCodeFor, isRyeError } from '../../errors/index.js';
import type { ExecuteResult } from '../../executor/index.js';
import { readTextFile } from '../../platform/index.js';
import type { CommandContext } from '../context.js';
import { emit, reportError } from '../report.js';
import type { ExecuteOptions } from './execute-options.js';

/**
 * `rye execute tool <id>` once the context is resolved: run the tool through
 * its verified chain and print the result. Apart from the directive branch
 * (execute-run.ts) so that the fast path's runner (../fast/execute.ts) builds
 * without the directive planning it never runs.
 */
export async function executeToolRun(
  ctx: CommandContext,
  itemId: string,
  options: ExecuteOptions,
): Promise<number> {
  const { operationContext } = await import('../operation-context.js');
  const opsCtx = await operationContext(ctx, options.caps, options);
  const params = await readParams(options, ctx.io.cwd);
  // Loaded on use: the other commands never pay for the executor's modules.
  const { executeThreadTool, executeTool, killRunningTools, runOperationLazily } =
    await import('./execute-tool-run.js');
  // rye/agent/threads/* run in process, answering what MCP answers.
  const virtual = await executeThreadTool(opsCtx, itemId, params, options.dryRun === true);
  if (virtual !== undefined) {
    const shown = virtual.status === 'success' ? virtual.data : virtual;
    emit(ctx, virtual, [JSON.stringify(shown, null, 2)]);
    return 0;
  }
  let result: ExecuteResult;
  const stopTools = forwardInterrupts(killRunningTools);
  try {
    result = await executeTool(opsCtx, itemId, {
      parameters: params,
      nested: runOperationLazily,
      dryRun: options.dryRun === true || options.explainSandbox === true,
      ...(options.frozen === true ? { frozen: true } : {}),
    });
  } catch (error) {
    if (!isRyeError(error)) throw error;
    if (!ctx.json) return reportError(ctx, error);
    // A JSON refusal still prints the result shape, so agents parse one format.
    const refused = {
      ok: false,
      status: 'error',
      item_id: itemId,
      data: null,
      error: errorJson(error.code, error.message, error.details),
      chain: [],
      metadata: { duration_ms: 0, lockfile_used: false, lockfile_created: false },
    };
    emit(ctx, refused, []);
    return exitCodeFor(error.code);
  } finally {
    stopTools();
  }
  if (options.explainSandbox === true) {
    emit(
      ctx,
      { ok: true, item_id: result.item_id, sandbox: result.plan?.sandbox ?? null },
      explainLines(result),
    );
    return 0;
  }
  emit(ctx, resultJson(result), humanLines(result));
  return result.status === 'success' ? 0 : 1;
}

/** The result as printed: `ok` first, an error's details in snake_case (docs/json-output.md). */
function resultJson(result: ExecuteResult): Record<string, unknown> {
  const { error } = result;
  return {
    ok: result.status === 'success',
    ...result,
    ...(error === undefined ? {} : { error: errorJson(error.code, error.message, error.details) }),
  };
}

async function readParams(options: ExecuteOptions, cwd: string): Promise<Record<string, unknown>> {
  if (options.params !== undefined && options.paramsFile !== undefined) {
    throw new RyeError('USAGE_INVALID_ARGUMENT', 'Cannot take both --params and --params-file', {});
  }
  const source = options.paramsFile !== undefined ? options.paramsFile : '--params';
  const text =
    options.paramsFile !== undefined
      ? await readTextFile(resolve(cwd, options.paramsFile), 1024 * 1024)
      : (options.params ?? '{}');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new RyeError(
      'USAGE_INVALID_ARGUMENT',
      `Cannot parse ${source}: ${(error as Error).message}`,
      { source },
      { cause: error },
    );
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new RyeError(
      'USAGE_INVALID_ARGUMENT',
      `Cannot use ${source}: parameters must be a JSON object`,
      { source },
    );
  }
  return value as Record<string, unknown>;
}

/** `--explain-sandbox`: the effective policy and the bwrap command line, one argument a line. */
function explainLines(result: ExecuteResult): string[] {
  const box = result.plan?.sandbox ?? null;
  if (box === null) return [`${result.item_id}: an HTTP tool, run in process: no sandbox`];
  const list = (values: readonly string[]): string =>
    values.length === 0 ? '-' : values.join(', ');
  return [
    `sandbox of ${result.item_id}: ${box.mode === 'off' ? 'off (the operator turned it off)' : 'bwrap'}`,
    `  read:    ${list(box.read)}`,
    `  write:   ${list(box.write)}`,
    `  network: ${box.network}`,
    `  env:     ${list(box.env)}`,
    `  rye:     ${list(box.rye)}`,
    `  daemon:  ${box.daemon}`,
    ...(box.narrowed.length === 0 ? [] : [`  narrowed by the caller: ${box.narrowed.join(', ')}`]),
    ...(box.argv === undefined
      ? []
      : [
          '  bwrap argv (the environment is passed apart, values withheld):',
          ...box.argv.map((a) => `    ${JSON.stringify(a)}`),
        ]),
  ];
}

function humanLines(result: ExecuteResult): string[] {
  const chain = result.chain.map((e) => `${e.item_id} (${e.space})`).join(' → ');
  const lines = [`${result.status === 'success' ? 'ok' : 'failed'}  ${result.item_id}  [${chain}]`];
  if (result.plan !== undefined) {
    const p = result.plan;
    lines.push(
      'dry run — nothing was spawned',
      p.argv !== null ? `  argv: ${JSON.stringify(p.argv)}` : `  url: ${p.url ?? ''}`,
      `  cwd: ${p.cwd ?? '-'}`,
      `  env set by rye: ${p.env_keys.join(', ') || '-'}`,
      `  .env: ${p.dotenv}`,
      `  anchor: ${p.anchor.applied ? p.anchor.path : 'not applied'}`,
      `  runs from: ${p.snapshot ?? '-'}`,
      `  files verified (${p.files_verified.length}):`,
      ...p.files_verified.map((f) => `    ${f}`),
      ...(p.files_left_out.length === 0
        ? []
        : [
            `  left out, nothing authenticates them (${p.files_left_out.length}):`,
            ...p.files_left_out.map((f) => `    ${f}`),
          ]),
    );
  }
  if (result.error !== undefined)
    lines.push(`error[${result.error.code}]: ${result.error.message}`);
  if (result.data !== null && result.data !== undefined)
    // JSON escapes every LF inside a value: the LFs left are the layout.
    lines.push(...JSON.stringify(result.data, null, 2).split('\n'));
  lines.push(`(${result.metadata.duration_ms} ms)`);
  return lines;
}

/**
 * Tools run in their own process group, out of reach of the terminal's Ctrl-C:
 * while one runs, SIGINT/SIGTERM kill its group, then end rye (exit 130/143).
 * Returns the function that ends the forwarding (the handlers stay: a signal
 * that arrives afterwards still ends rye, as it should).
 */
function forwardInterrupts(killRunningTools: () => number): () => void {
  stopRunningTools = killRunningTools;
  if (!interruptsInstalled) {
    // Installed once and never removed: a signal that arrives during synchronous
    // work is dispatched only on a later turn, and removing the listener first
    // would drop it (the run would then exit as if nothing happened).
    interruptsInstalled = true;
    process.on('SIGINT', onInterrupt);
    process.on('SIGTERM', onInterrupt);
  }
  return () => {
    stopRunningTools = null;
  };
}

let interruptsInstalled = false;
let stopRunningTools: (() => number) | null = null;

function onInterrupt(signal: NodeJS.Signals): void {
  stopRunningTools?.();
  process.exit(signal === 'SIGINT' ? 130 : 143);
}
