import { resolve } from 'node:path';
import { RyeError } from '../../errors/index.js';
import { readTextFile } from '../../platform/index.js';
import type { DirectivePlan } from '../../threads/admission/index.js';
import type { CommandContext } from '../context.js';
import { emit } from '../report.js';

export interface DirectiveCliOptions {
  readonly caps?: string;
  readonly sandbox?: boolean;
  readonly inputs?: string;
  readonly plan?: boolean;
  readonly spawn?: boolean;
  readonly detachedWorker?: boolean;
  readonly limit: readonly string[];
}

/**
 * `rye execute directive <id> --inputs … --plan`: admit the directive on paper
 * and print the exact first request (system prompt, first message, tool
 * definitions with their id enums), its capabilities and what it lost, its
 * limits, model and worst-case cost. Calls no provider and needs no key.
 */
export async function planCommand(
  ctx: CommandContext,
  directiveId: string,
  options: DirectiveCliOptions,
): Promise<number> {
  if (options.detachedWorker === true) {
    const { detachedWorkerCommand } = await import('./detached-worker.js');
    return detachedWorkerCommand(ctx, directiveId);
  }
  if (options.plan !== true) {
    const { runDirectiveCommand, spawnDirectiveCommand } = await import('./run-directive.js');
    const inputs = await readInputs(options.inputs, ctx.io.cwd);
    if (options.spawn === true) return spawnDirectiveCommand(ctx, directiveId, inputs, options);
    return runDirectiveCommand(ctx, directiveId, inputs, options);
  }
  const { parseLimitOverrides } = await import('../../threads/directive/index.js');
  const { planDirectiveOperation } = await import('../../threads/admission/index.js');
  const { operationContext } = await import('../operation-context.js');
  const limitOverrides = parseLimitOverrides(options.limit);
  const inputs = await readInputs(options.inputs, ctx.io.cwd);
  const plan = await planDirectiveOperation(
    await operationContext(ctx, options.caps, options),
    directiveId,
    inputs,
    { limitOverrides, toolSandboxes: true },
  );
  emit(ctx, { ok: true, plan }, planLines(plan));
  return 0;
}

/** `--inputs JSON` or `--inputs @file`; absent: no inputs. */
async function readInputs(value: string | undefined, cwd: string): Promise<unknown> {
  if (value === undefined) return {};
  const fromFile = value.startsWith('@');
  const text = fromFile ? await readTextFile(resolve(cwd, value.slice(1)), 1024 * 1024) : value;
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new RyeError(
      'USAGE_INVALID_ARGUMENT',
      `Cannot parse --inputs${fromFile ? ` (${value.slice(1)})` : ''}: ${(error as Error).message}`,
      { source: fromFile ? value.slice(1) : '--inputs' },
      { cause: error },
    );
  }
}

function planLines(plan: DirectivePlan): string[] {
  const model =
    plan.model === null
      ? `model: unresolved (${plan.model_error?.code ?? '?'}: ${plan.model_error?.message ?? ''})`
      : `model: ${plan.model.provider}/${plan.model.model} at ${plan.model.host} (context ${plan.model.context_window}, output ${plan.model.output_limit})`;
  const worst = plan.worst_case;
  const limits = Object.entries(plan.limits)
    .map(([k, v]) => `${k}=${v === 0 || v === '0' ? 'unlimited' : String(v)}`)
    .join(' ');
  const lines = [
    `plan for directive ${plan.directive.id} (${plan.directive.space}, sha256 ${plan.directive.content_sha256.slice(0, 16)}…) — nothing was called`,
    model,
    `limits: ${limits}`,
    ...(worst === null
      ? []
      : [
          `worst case: first request $${worst.first_request_usd} (max_tokens ${worst.first_request_max_tokens}), per turn $${worst.per_turn_usd}, ${worst.turn_budget_usd === null ? 'turns unlimited' : `all turns $${worst.turn_budget_usd}`}, spend limit ${worst.spend_limit_usd === null ? 'unlimited' : `$${worst.spend_limit_usd}`}`,
          `whole tree: ${worst.tree.max_threads === null ? 'threads unbounded' : `at most ${worst.tree.max_threads} threads`}, worst case ${worst.tree.worst_usd === null ? 'unbounded' : `$${worst.tree.worst_usd}`}`,
        ]),
    'capabilities:',
    ...(plan.capabilities.length === 0 ? ['  (none)'] : plan.capabilities.map((c) => `  ${c}`)),
    ...(plan.caps_dropped.length === 0
      ? []
      : ['caps_dropped (declared, not granted):', ...plan.caps_dropped.map((c) => `  ${c}`)]),
    ...sandboxLines(plan),
    'tools:',
    ...plan.tools.map((t) => {
      const props = (t.input_schema['properties'] ?? {}) as Record<string, Record<string, unknown>>;
      const ids = props['item_id']?.['enum'] as string[] | undefined;
      return `  ${t.name}${ids === undefined ? '' : ` (item_id: ${ids.join(', ') || 'none'})`}`;
    }),
    '--- system prompt ---',
    ...plan.system_prompt.replace(/\n$/, '').split('\n'),
    '--- first message ---',
    ...plan.first_message.split('\n'),
  ];
  return lines;
}

/** The thread's sandbox bound and each granted tool's effective sandbox (docs/sandbox.md). */
function sandboxLines(plan: DirectivePlan): string[] {
  const boxes = plan.tool_sandboxes;
  if (boxes === undefined) return [];
  const list = (values: readonly string[]): string =>
    values.length === 0 ? '-' : values.join(' ');
  const bound = plan.sandbox;
  return [
    `sandbox: ${boxes.mode === 'off' ? 'off (the operator turned it off)' : 'bwrap'}${
      bound === null
        ? ''
        : `, narrowed by the directive to write ${bound.write === undefined ? 'as declared' : list(bound.write)}${bound.network === false ? ', no network' : ''}`
    }`,
    ...boxes.tools.map((t) =>
      'error' in t
        ? `  ${t.tool}: ${t.error}`
        : `  ${t.tool}: read ${list(t.read)}; write ${list(t.write)}; network ${t.network ? 'yes' : 'no'}${t.rye.length === 0 ? '' : `; rye ${list(t.rye)}`}${t.narrowed.length === 0 ? '' : `; narrowed ${list(t.narrowed)}`}`,
    ),
  ];
}
