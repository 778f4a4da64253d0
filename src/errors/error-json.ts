import { hintFor, type ErrorCode } from './codes.js';
import type { ErrorDetails } from './rye-error.js';

/** An error as a machine reads it: `--json` output, tool results (docs/json-output.md). */
export interface ErrorJson {
  readonly code: ErrorCode;
  readonly message: string;
  readonly hint: string;
  /** The error's evidence, its keys in snake_case (see {@link snakeCaseKeys}). */
  readonly details: unknown;
}

/** `{code, message, hint, details}` for an error of `code`; details as {@link snakeCaseKeys} gives them. */
export function errorJson(code: ErrorCode, message: string, details: unknown = {}): ErrorJson {
  return { code, message, hint: hintFor(code), details: snakeCaseKeys(details) };
}

const CAMEL = /^[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+$/;
const MAX_DEPTH = 32;

/**
 * `value` with every lowerCamelCase key of its plain objects, at any depth,
 * spelt in snake_case (`bundleId` → `bundle_id`, `retryAfterSeconds` →
 * `retry_after_seconds`). The library's error details are TypeScript-shaped;
 * JSON output is snake_case, and this is where the one becomes the other.
 * Keys of any other shape (`path`, `PATH`, `src/App.jsx`, `_signature`) are
 * kept, so names that are data survive. Arrays are mapped; other objects and
 * anything nested deeper than 32 levels are returned as they are. Pure.
 */
export function snakeCaseKeys(value: unknown, depth = 0): unknown {
  if (depth > MAX_DEPTH || typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map((v: unknown) => snakeCaseKeys(v, depth + 1));
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return value;
  // Entries, not assignment: a `__proto__` key stays a plain data property.
  return Object.fromEntries(
    Object.entries(value as ErrorDetails).map(([key, v]) => [
      CAMEL.test(key) ? key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`) : key,
      snakeCaseKeys(v, depth + 1),
    ]),
  );
}
