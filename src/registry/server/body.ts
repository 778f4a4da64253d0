import type { Context } from 'hono';
import { invalidRequest } from './errors.js';
import { flatObjectProblem } from './json-shape.js';

/**
 * UNTRUSTED INPUT: request bodies and query strings. Every body is one JSON
 * object with exactly the fields an endpoint names; each field is checked for
 * type and length before any handler logic sees it.
 */

/** A parsed request body: a plain object whose keys were all expected. */
export type Fields = Readonly<Record<string, unknown>>;

/**
 * Read the body as one JSON object holding only `allowed` keys (the size
 * was capped by the route's body limit). Its shape is checked in one linear
 * pass before `JSON.parse` builds anything.
 * @throws RyeError REGISTRY_INVALID_REQUEST
 */
export async function readJsonFields(c: Context, allowed: readonly string[]): Promise<Fields> {
  const text = await c.req.text();
  const problem = flatObjectProblem(text, allowed.length);
  if (problem !== undefined) {
    throw invalidRequest(
      `Cannot read the request: the body is not a flat JSON object (${problem})`,
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalidRequest('Cannot read the request: the body is not valid JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalidRequest('Cannot read the request: the body is not a JSON object');
  }
  const unknown = Object.keys(value).filter((k) => !allowed.includes(k));
  if (unknown.length > 0) {
    const names = unknown.slice(0, 5).map((k) => JSON.stringify(k.slice(0, 40)));
    throw invalidRequest(`Cannot read the request: unknown field ${names.join(', ')}`);
  }
  return value as Fields;
}

/**
 * A required string field of `min..max` characters.
 * @throws RyeError REGISTRY_INVALID_REQUEST
 */
export function stringField(o: Fields, name: string, max: number, min = 1): string {
  const value = o[name];
  if (typeof value !== 'string') {
    throw invalidRequest(`Cannot read the request: "${name}" must be a string`);
  }
  if (value.length < min || value.length > max) {
    throw invalidRequest(
      `Cannot read the request: "${name}" must be ${min}..${max} characters long`,
    );
  }
  return value;
}

/** @throws RyeError REGISTRY_INVALID_REQUEST */
export function booleanField(o: Fields, name: string): boolean {
  const value = o[name];
  if (typeof value !== 'boolean') {
    throw invalidRequest(`Cannot read the request: "${name}" must be true or false`);
  }
  return value;
}

/**
 * One of `choices`.
 * @throws RyeError REGISTRY_INVALID_REQUEST
 */
export function choiceOf<T extends string>(value: unknown, name: string, choices: readonly T[]): T {
  if (typeof value === 'string' && (choices as readonly string[]).includes(value)) {
    return value as T;
  }
  throw invalidRequest(`Cannot read the request: "${name}" must be one of ${choices.join(', ')}`);
}

/** The longest id, namespace or version accepted anywhere (ids are paths; 1 KiB is ample). */
export const MAX_NAME_LENGTH = 1024;
