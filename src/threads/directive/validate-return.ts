/**
 * The return schema of a directive (THREADS.md §2 "return schema"): the
 * `directive_return` tool's input. Built from the signed, un-interpolated
 * program, so an input value can never add or remove a field. Pure.
 */
import {
  RUNTIME_PLACEHOLDERS,
  forEachToken,
  isPlainObject,
  replaceTokens,
  valueTypeProblem,
  type DirectiveProgram,
  type JsonValue,
  type ValidationIssue,
  type ValueType,
} from '../../items/index.js';
import { renderValue } from './interpolate.js';

export type Outcome = 'success' | 'failure';

/** One field of the return value besides `outcome`. */
export interface ReturnField {
  readonly name: string;
  readonly type: ValueType;
  readonly description: string;
  /** The outcomes on which the field must be present. */
  readonly requiredOn: readonly Outcome[];
}

/** What `directive_return` accepts, and the templates its summary renders from. */
export interface ReturnSchema {
  readonly fields: readonly ReturnField[];
  readonly templates: { readonly success?: string; readonly failure?: string };
  /** JSON Schema for the provider tool (`additionalProperties: false`). */
  readonly jsonSchema: Readonly<Record<string, unknown>>;
}

/** Values a summary template is rendered with. */
export interface SummaryValues {
  readonly inputs: Readonly<Record<string, JsonValue>>;
  readonly outputs: Readonly<Record<string, unknown>>;
  readonly thread_id?: string;
}

/**
 * The return schema, or undefined when the directive declares no `<outputs>`
 * (then it is offered no `directive_return`). Fields: each `<output>`
 * (required on success when `required="true"`), then one string per template
 * `{placeholder}` (required on the outcome whose template names it).
 */
export function returnSchemaOf(program: DirectiveProgram): ReturnSchema | undefined {
  const outputs = program.outputs;
  if (outputs === undefined) return undefined;
  const fields = new Map<string, { decl: Omit<ReturnField, 'requiredOn'>; on: Set<Outcome> }>();
  for (const f of outputs.fields) {
    const on = new Set<Outcome>(f.required ? ['success'] : []);
    fields.set(f.name, { decl: { name: f.name, type: f.type, description: f.description }, on });
  }
  for (const outcome of ['success', 'failure'] as const) {
    const template = outputs[outcome];
    if (template === undefined) continue;
    for (const name of placeholdersOf(template)) {
      const entry = fields.get(name) ?? {
        decl: { name, type: 'string', description: `Fills {${name}} in the ${outcome} summary.` },
        on: new Set<Outcome>(),
      };
      entry.on.add(outcome);
      fields.set(name, entry);
    }
  }
  const list: ReturnField[] = [...fields.values()].map(({ decl, on }) => ({
    ...decl,
    requiredOn: (['success', 'failure'] as const).filter((o) => on.has(o)),
  }));
  return {
    fields: list,
    templates: {
      ...(outputs.success === undefined ? {} : { success: outputs.success }),
      ...(outputs.failure === undefined ? {} : { failure: outputs.failure }),
    },
    jsonSchema: jsonSchemaOf(list),
  };
}

/**
 * Check a `directive_return` value: an object with a valid `outcome`, no
 * unknown field, every field required on that outcome present, every present
 * field of its type. Returns every problem (empty = valid). Never throws.
 */
export function validateReturn(schema: ReturnSchema, value: unknown): ValidationIssue[] {
  if (!isPlainObject(value)) return [{ field: '', message: 'the return value must be an object' }];
  const issues: ValidationIssue[] = [];
  const outcome = value['outcome'];
  if (outcome !== 'success' && outcome !== 'failure') {
    issues.push({ field: 'outcome', message: 'must be "success" or "failure"' });
  }
  const byName = new Map(schema.fields.map((f) => [f.name, f]));
  for (const key of Object.keys(value)) {
    if (key !== 'outcome' && !byName.has(key)) {
      issues.push({ field: key.slice(0, 64), message: 'is not a declared output' });
    }
  }
  for (const field of schema.fields) {
    if (Object.hasOwn(value, field.name)) {
      const problem = valueTypeProblem(field.type, value[field.name]);
      if (problem !== undefined) issues.push({ field: field.name, message: problem });
    } else if (field.requiredOn.includes(outcome as Outcome)) {
      issues.push({ field: field.name, message: `is required when outcome is ${String(outcome)}` });
    }
  }
  return issues;
}

/**
 * Render a summary from a **signed, un-interpolated** template in one pass:
 * `{input:x}` from the inputs ('' when absent), `{thread_id}` from the
 * values, `{name}` from the returned outputs. Unfilled placeholders stay as
 * written; nothing inserted is scanned again.
 */
export function renderSummary(template: string, values: SummaryValues): string {
  return replaceTokens(template, (token) => {
    switch (token.kind) {
      case 'input':
        return Object.hasOwn(values.inputs, token.name)
          ? renderValue(values.inputs[token.name] as JsonValue)
          : '';
      case 'malformed_input':
        return undefined;
      case 'placeholder':
        if (token.name === 'thread_id') return values.thread_id;
        return Object.hasOwn(values.outputs, token.name)
          ? renderValue(values.outputs[token.name] as JsonValue)
          : undefined;
    }
  });
}

function placeholdersOf(template: string): string[] {
  const names: string[] = [];
  forEachToken(template, (token) => {
    if (token.kind !== 'placeholder' || RUNTIME_PLACEHOLDERS.includes(token.name)) return;
    if (!names.includes(token.name)) names.push(token.name);
  });
  return names;
}

function jsonSchemaOf(fields: readonly ReturnField[]): Record<string, unknown> {
  const properties: Record<string, unknown> = {
    outcome: {
      type: 'string',
      enum: ['success', 'failure'],
      description: 'success when the directive achieved its goal, failure otherwise.',
    },
  };
  for (const f of fields) {
    const when =
      f.requiredOn.length === 0 ? '' : ` Required when outcome is ${f.requiredOn.join(' or ')}.`;
    properties[f.name] = { type: f.type, description: `${f.description}${when}`.trim() };
  }
  const always = fields.filter((f) => f.requiredOn.length === 2).map((f) => f.name);
  return {
    type: 'object',
    properties,
    required: ['outcome', ...always],
    additionalProperties: false,
  };
}
