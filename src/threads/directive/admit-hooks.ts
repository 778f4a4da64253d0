/**
 * Hook admission (THREADS.md §12): the result mode and ratio defaults applied,
 * action ids and inputs interpolated, then the ids validated as item ids. The
 * capability and budget checks happen at fire time, not here. Pure.
 */
import { RyeError } from '../../errors/index.js';
import {
  DEFAULT_PRESSURE_RATIO,
  HOOK_EVENTS,
  problemWith,
  type DirectiveProgram,
  type HookEvent,
  type ResultMode,
  type ValidationIssue,
} from '../../items/index.js';
import type { InputValues } from './resolve-inputs.js';
import { Interpolator } from './interpolate.js';

/** A hook as admitted with its thread (`hooks_admitted`). */
export interface AdmittedHook {
  /** Position in `<hooks>`. */
  readonly index: number;
  readonly event: HookEvent;
  /** `limit` hooks: the limit it fires on; absent = any. */
  readonly when?: string;
  /** `context_window_pressure` hooks: the live-window ratio (default 0.8). */
  readonly ratio?: number;
  readonly resultMode: ResultMode;
  readonly action: { readonly kind: 'directive' | 'tool'; readonly itemId: string };
  readonly inputs: Readonly<Record<string, string>>;
}

/**
 * Admit a program's hooks against resolved inputs.
 *
 * @throws RyeError VALIDATION_FAILED when an id or input references an
 *   unknown input; INPUTS_INVALID when an input value makes an action id
 *   invalid (e.g. `../x`), listing every such hook.
 */
export function admitHooks(program: DirectiveProgram, inputs: InputValues): AdmittedHook[] {
  const it = new Interpolator(
    inputs,
    program.inputs.map((i) => i.name),
  );
  const admitted = program.hooks.map((hook, index): AdmittedHook => {
    const at = `hooks.hook[${index}]`;
    const rule = HOOK_EVENTS[hook.event];
    const inputsOut: Record<string, string> = Object.create(null);
    for (const [k, v] of Object.entries(hook.inputs))
      inputsOut[k] = it.text(v, `${at}.inputs.${k}`);
    const ratio =
      hook.event === 'context_window_pressure' ? (hook.ratio ?? DEFAULT_PRESSURE_RATIO) : undefined;
    return {
      index,
      event: hook.event,
      ...(hook.when === undefined ? {} : { when: hook.when }),
      ...(ratio === undefined ? {} : { ratio }),
      resultMode: hook.resultMode ?? (rule.modes[0] as ResultMode),
      action: {
        kind: hook.action.kind,
        itemId: it.text(hook.action.itemId, `${at}.${hook.action.kind}`),
      },
      inputs: inputsOut,
    };
  });
  it.finish(`the hooks of ${program.name}`);
  const issues: ValidationIssue[] = [];
  for (const hook of admitted) {
    const problem = problemWith(hook.action.itemId);
    if (problem !== undefined) {
      const id = JSON.stringify(hook.action.itemId.slice(0, 120));
      issues.push({
        field: `hooks.hook[${hook.index}].${hook.action.kind}`,
        message: `the inputs make the ${hook.event} hook's id ${id} invalid: ${problem}`,
      });
    }
  }
  if (issues.length > 0) {
    const list = issues.map((i) => `${i.field}: ${i.message}`).join('; ');
    throw new RyeError('INPUTS_INVALID', `Cannot admit the hooks of ${program.name}: ${list}`, {
      directive: program.name,
      issues,
    });
  }
  return admitted;
}

/**
 * A hook as `thread.json` and `thread_created` record it (`hooks_admitted`),
 * in the snake_case of the other record fields. Pure.
 */
export function admittedHookRecord(hook: AdmittedHook): Record<string, unknown> {
  return {
    index: hook.index,
    event: hook.event,
    ...(hook.when === undefined ? {} : { when: hook.when }),
    ...(hook.ratio === undefined ? {} : { ratio: hook.ratio }),
    result_mode: hook.resultMode,
    action: { kind: hook.action.kind, item_id: hook.action.itemId },
    inputs: { ...hook.inputs },
  };
}
