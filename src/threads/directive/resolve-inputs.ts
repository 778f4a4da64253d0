/**
 * Caller inputs checked against a directive's `<inputs>`: types, required
 * inputs, defaults applied, unknown inputs refused, every problem listed.
 * Pure.
 */
import { RyeError } from '../../errors/index.js';
import {
  describeValue,
  isPlainObject,
  valueTypeProblem,
  type DirectiveInputDecl,
  type JsonValue,
  type ValidationIssue,
} from '../../items/index.js';

/** Inputs after checking: every given input plus the defaults of absent ones. */
export type InputValues = Readonly<Record<string, JsonValue>>;

const MAX_SHOWN = 64;
const MAX_ISSUES = 100;

/**
 * Check `given` (a JSON object, or undefined for none) against the declared
 * inputs and apply defaults. An optional input without a default that was
 * not given stays absent.
 *
 * @throws RyeError INPUTS_INVALID with `details.issues` ({field, message}[])
 *   listing every unknown, missing or mistyped input at once.
 */
export function resolveInputs(
  declared: readonly DirectiveInputDecl[],
  given: unknown,
  directive = 'the directive',
): InputValues {
  const issues: ValidationIssue[] = [];
  const values = new Map<string, JsonValue>();
  if (given !== undefined && !isPlainObject(given)) {
    issues.push({ field: 'inputs', message: `must be a JSON object, got ${describeValue(given)}` });
    fail(directive, issues);
  }
  const record = (given ?? {}) as Record<string, unknown>;
  const names = new Set(declared.map((d) => d.name));
  for (const key of Object.keys(record)) {
    if (names.has(key)) continue;
    const known = names.size === 0 ? 'it declares none' : `declared: ${[...names].join(', ')}`;
    issues.push({ field: `inputs.${shown(key)}`, message: `unknown input (${known})` });
  }
  for (const input of declared) {
    const field = `inputs.${input.name}`;
    if (Object.hasOwn(record, input.name)) {
      const value = record[input.name];
      const problem = valueTypeProblem(input.type, value);
      if (problem === undefined) values.set(input.name, value as JsonValue);
      else issues.push({ field, message: problem });
    } else if (input.default !== undefined) {
      values.set(input.name, input.default);
    } else if (input.required) {
      issues.push({ field, message: `is required (${input.type})` });
    }
  }
  if (issues.length > 0) fail(directive, issues);
  return Object.fromEntries(values);
}

function fail(directive: string, all: ValidationIssue[]): never {
  // Capped: a hostile caller cannot grow the error with a million unknown keys.
  const issues = all.slice(0, MAX_ISSUES);
  if (all.length > MAX_ISSUES) {
    issues.push({ field: '', message: `and ${all.length - MAX_ISSUES} more problems` });
  }
  const count = all.length === 1 ? '1 problem' : `${all.length} problems`;
  const list = issues.map((i) => (i.field === '' ? i.message : `${i.field}: ${i.message}`));
  throw new RyeError(
    'INPUTS_INVALID',
    `Cannot run ${directive} with these inputs: ${count}: ${list.join('; ')}`,
    { directive, issues },
  );
}

function shown(key: string): string {
  // eslint-disable-next-line no-control-regex
  const clean = key.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, '?');
  return clean.length > MAX_SHOWN ? `${clean.slice(0, MAX_SHOWN)}…` : clean;
}
