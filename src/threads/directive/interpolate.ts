/**
 * `{input:name}` interpolation (docs/directives.md). One pass: an inserted
 * value is never scanned again, so a value holding `{input:b}` stays literal.
 * Only `{input:…}` tokens are touched: `{thread_id}` and output placeholders
 * stay for the runtime. Pure.
 */
import { RyeError } from '../../errors/index.js';
import {
  malformedSample,
  replaceTokens,
  type DirectiveProgram,
  type JsonValue,
  type ValidationIssue,
} from '../../items/index.js';
import type { InputValues } from './resolve-inputs.js';

const MAX_ISSUES = 100;

/** Collects interpolation problems over many fields, then fails once. */
export class Interpolator {
  readonly #inputs: InputValues;
  readonly #declared: ReadonlySet<string>;
  readonly #issues: ValidationIssue[] = [];
  readonly #seen = new Set<string>();

  /** `declared`: the names the directive declares (absent optional inputs render as ''). */
  constructor(inputs: InputValues, declared: Iterable<string> = Object.keys(inputs)) {
    this.#inputs = inputs;
    this.#declared = new Set(declared);
  }

  /** Interpolate one field; problems are recorded under `path`. */
  text(template: string, path: string): string {
    return replaceTokens(template, (token) => {
      if (token.kind === 'placeholder') return undefined;
      if (token.kind === 'malformed_input') {
        this.#issue(path, `"${malformedSample(token)}" is not a placeholder: write {input:name}`);
        return undefined;
      }
      if (Object.hasOwn(this.#inputs, token.name)) {
        return renderValue(this.#inputs[token.name] as JsonValue);
      }
      if (this.#declared.has(token.name)) return '';
      this.#issue(path, `{input:${token.name}} names no declared input`);
      return undefined;
    });
  }

  /**
   * @throws RyeError VALIDATION_FAILED when any field referenced an unknown
   *   input or held a malformed `{input:` token.
   */
  finish(what: string): void {
    if (this.#issues.length === 0) return;
    const list = this.#issues.map((i) => `${i.field}: ${i.message}`).join('; ');
    throw new RyeError('VALIDATION_FAILED', `Cannot interpolate ${what}: ${list}`, {
      issues: [...this.#issues],
    });
  }

  #issue(field: string, message: string): void {
    // One issue per field and message (a repeated bad token says it once), capped.
    const key = `${field}\0${message}`;
    if (this.#seen.has(key) || this.#issues.length >= MAX_ISSUES) return;
    this.#seen.add(key);
    this.#issues.push({ field, message });
  }
}

/** How an input value reads inside text: strings as is, everything else as JSON. */
export function renderValue(value: JsonValue): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * Interpolate one text (a whole directive body, a description) against the
 * inputs; `declared` defaults to the given names.
 *
 * @throws RyeError VALIDATION_FAILED for an unknown `{input:x}` or a malformed token.
 */
export function interpolate(
  template: string,
  inputs: InputValues,
  declared?: Iterable<string>,
): string {
  const interpolator = new Interpolator(inputs, declared);
  const out = interpolator.text(template, 'text');
  interpolator.finish('the text');
  return out;
}

/**
 * The program with `{input:x}` replaced in every text field: descriptions,
 * step action ids, queries and params, hook ids and inputs, success criteria,
 * output templates and descriptions. Permissions, limits and the model are
 * never interpolated. Return schemas and summaries are built from the signed,
 * un-interpolated program (see outputs.ts), so an input cannot add a field.
 *
 * @throws RyeError VALIDATION_FAILED listing every unknown or malformed token.
 */
export function interpolateProgram(
  program: DirectiveProgram,
  inputs: InputValues,
): DirectiveProgram {
  const it = new Interpolator(
    inputs,
    program.inputs.map((i) => i.name),
  );
  const map = (record: Readonly<Record<string, string>>, path: string): Record<string, string> => {
    const out: Record<string, string> = Object.create(null);
    for (const [k, v] of Object.entries(record)) out[k] = it.text(v, `${path}.${k}`);
    return out;
  };
  const outputs = program.outputs;
  const result: DirectiveProgram = {
    ...program,
    description: it.text(program.description, 'metadata.description'),
    inputs: program.inputs.map((input, i) => ({
      ...input,
      description: it.text(input.description, `inputs.input[${i}]`),
    })),
    process: program.process.map((step, s) => ({
      ...step,
      description: it.text(step.description, `process.step[${s}].description`),
      actions: step.actions.map((action, a) => {
        const at = `process.step[${s}].${action.verb}[${a}]`;
        return {
          ...action,
          ...(action.itemId === undefined
            ? {}
            : { itemId: it.text(action.itemId, `${at}@item_id`) }),
          ...(action.query === undefined ? {} : { query: it.text(action.query, `${at}@query`) }),
          params: map(action.params, `${at}.param`),
        };
      }),
    })),
    hooks: program.hooks.map((hook, h) => ({
      ...hook,
      action: {
        ...hook.action,
        itemId: it.text(hook.action.itemId, `hooks.hook[${h}].${hook.action.kind}`),
      },
      inputs: map(hook.inputs, `hooks.hook[${h}].inputs`),
    })),
    successCriteria: program.successCriteria.map((c, i) =>
      it.text(c, `success_criteria.criterion[${i}]`),
    ),
    ...(outputs === undefined
      ? {}
      : {
          outputs: {
            ...(outputs.success === undefined
              ? {}
              : { success: it.text(outputs.success, 'outputs.success') }),
            ...(outputs.failure === undefined
              ? {}
              : { failure: it.text(outputs.failure, 'outputs.failure') }),
            fields: outputs.fields.map((f, i) => ({
              ...f,
              description: it.text(f.description, `outputs.output[${i}]`),
            })),
          },
        }),
  };
  it.finish(`directive ${program.name}`);
  return result;
}
