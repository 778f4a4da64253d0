/**
 * The value types of `<input type>` and `<output type>`: checks of JSON values
 * against a type, and the parse of a `default` attribute. Pure.
 */
import { VALUE_TYPES, type ValueType } from './grammar.js';
import type { JsonValue } from './types.js';

/** Longest `default` attribute parsed as JSON (object/array defaults). */
const MAX_JSON_DEFAULT = 4096;
const NUMBER_RE = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$/;
const INTEGER_RE = /^-?(?:0|[1-9][0-9]*)$/;

/** True for one of the value type names. */
export function isValueType(value: string): value is ValueType {
  return (VALUE_TYPES as readonly string[]).includes(value);
}

/** The problem with `value` as a `type`, or undefined when it fits. Never throws. */
export function valueTypeProblem(type: ValueType, value: unknown): string | undefined {
  const fits = ((): boolean => {
    switch (type) {
      case 'string':
        return typeof value === 'string';
      case 'number':
        return typeof value === 'number' && Number.isFinite(value);
      case 'integer':
        return typeof value === 'number' && Number.isSafeInteger(value);
      case 'boolean':
        return typeof value === 'boolean';
      case 'object':
        return isPlainObject(value);
      case 'array':
        return Array.isArray(value);
    }
  })();
  return fits ? undefined : `must be ${article(type)}, got ${describe(value)}`;
}

/**
 * Parse a `default` attribute as `type`: numbers and booleans from their JSON
 * spelling, objects and arrays as JSON. Returns the value or a problem.
 */
export function parseDefault(
  type: ValueType,
  raw: string,
): { value: JsonValue } | { problem: string } {
  switch (type) {
    case 'string':
      return { value: raw };
    case 'boolean':
      return raw === 'true' || raw === 'false'
        ? { value: raw === 'true' }
        : { problem: `must be "true" or "false" for a boolean input` };
    case 'number':
    case 'integer': {
      const pattern = type === 'integer' ? INTEGER_RE : NUMBER_RE;
      const value = pattern.test(raw) ? Number(raw) : Number.NaN;
      const problem = valueTypeProblem(type, value);
      return problem === undefined ? { value } : { problem: `must be ${article(type)}` };
    }
    case 'object':
    case 'array': {
      if (raw.length > MAX_JSON_DEFAULT) {
        return { problem: `is longer than ${MAX_JSON_DEFAULT} characters` };
      }
      let value: unknown;
      try {
        value = JSON.parse(raw);
      } catch {
        return { problem: `must be JSON ${article(type)}` };
      }
      const problem = valueTypeProblem(type, value);
      return problem === undefined ? { value: value as JsonValue } : { problem };
    }
  }
}

/** A non-null, non-array object whose prototype is Object.prototype or null. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/** A value type of a JSON value, for messages. */
export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return `the number ${String(value)}`;
    return Number.isInteger(value) ? `the integer ${value}` : `the number ${value}`;
  }
  if (typeof value === 'string') return 'a string';
  if (typeof value === 'boolean') return `the boolean ${String(value)}`;
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

function article(type: ValueType): string {
  return type === 'integer' || type === 'object' || type === 'array' ? `an ${type}` : `a ${type}`;
}
