/**
 * Validate a tool's params against its `config_schema` (architecture step 9).
 * Params are untrusted (they come from an agent); schemas come from signed items.
 */
import { createRequire } from 'node:module';
import type { Ajv, ErrorObject, Options, ValidateFunction } from 'ajv';
import { RyeError } from '../../errors/index.js';
import { isPlainObject } from '../env/template.js';

/** One schema violation; `path` is a JSON pointer into the params (`/` is the root). */
export interface ParamsIssue {
  readonly path: string;
  readonly message: string;
}

// Formats (`format: uri`, …) are not checked: no format plugin is installed,
// and unknown keywords/formats must not fail tools written for the Python side.
// ajv loads on the first schema compiled (synchronously: it is CommonJS), so
// tools without a config_schema and verify-only commands never pay for it.
let instance: Ajv | undefined;
function ajv(): Ajv {
  if (instance === undefined) {
    const { Ajv: AjvClass } = createRequire(import.meta.url)('ajv') as {
      Ajv: new (options: Options) => Ajv;
    };
    instance = new AjvClass({ allErrors: true, strict: false, useDefaults: true, logger: false });
  }
  return instance;
}
const MAX_CACHED = 256;
const cache = new Map<string, ValidateFunction>();

function describe(value: unknown): string {
  if (value === null) return 'null';
  return Array.isArray(value) ? 'a list' : `a ${typeof value}`;
}

/** A plain, JSON-only deep copy (drops null prototypes; refuses cycles, bigint). */
function jsonCopy(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value)) as unknown;
}

function compile(schema: Record<string, unknown>, source: string): ValidateFunction {
  let text: string;
  try {
    text = JSON.stringify(schema);
  } catch (cause) {
    throw new RyeError(
      'EXECUTOR_CONFIG_INVALID',
      `Cannot use config_schema of ${source}: it is not JSON (${String(cause)})`,
      { source },
      { cause },
    );
  }
  const cached = cache.get(text);
  if (cached !== undefined) return cached;
  const parsed = JSON.parse(text) as Record<string, unknown>;
  let validate: ValidateFunction;
  try {
    validate = ajv().compile(parsed);
  } catch (cause) {
    const why = cause instanceof Error ? cause.message : String(cause);
    throw new RyeError(
      'EXECUTOR_CONFIG_INVALID',
      `Cannot use config_schema of ${source}: ${why}`,
      { source },
      { cause },
    );
  } finally {
    // The compiled function stands alone; dropping the schema from ajv keeps its
    // registry small and lets another schema reuse the same `$id`.
    ajv().removeSchema(parsed);
  }
  if (cache.size >= MAX_CACHED) cache.clear();
  cache.set(text, validate);
  return validate;
}

function toIssue(error: ErrorObject): ParamsIssue {
  const params = error.params as Record<string, unknown>;
  // Point at the offending property itself, not at its parent object.
  const property = params['missingProperty'] ?? params['additionalProperty'];
  const escaped =
    typeof property === 'string' ? `/${property.replace(/~/g, '~0').replace(/\//g, '~1')}` : '';
  const path = `${error.instancePath}${escaped}` || '/';
  return { path, message: withAllowed(error, params) };
}

/** Values an enum lists at most in a message (the schema has them all). */
const MAX_LISTED = 12;

/**
 * ajv's message, worded for the property the issue points at (a missing or an
 * unknown one), plus the allowed values of an `enum` or `const` (a user cannot
 * guess them).
 */
function withAllowed(error: ErrorObject, params: Record<string, unknown>): string {
  const message = error.message ?? error.keyword;
  if (error.keyword === 'required') return 'is required';
  if (error.keyword === 'additionalProperties') return 'is not a parameter of this tool';
  if (error.keyword === 'const') return `must be ${shown(params['allowedValue'])}`;
  const allowed = params['allowedValues'];
  if (error.keyword !== 'enum' || !Array.isArray(allowed)) return message;
  const listed = allowed.slice(0, MAX_LISTED).map(shown).join(', ');
  const more = allowed.length > MAX_LISTED ? `, … (${allowed.length} in all)` : '';
  return `must be one of ${listed}${more}`;
}

function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

function fail(source: string, message: string, issues: readonly ParamsIssue[]): never {
  throw new RyeError('PARAMS_INVALID', `Cannot run ${source}: ${message}`, { source, issues });
}

/**
 * Check `params` against `schema` (JSON Schema, via ajv with `allErrors`,
 * `useDefaults`, `strict: false`) and return a validated deep copy with schema
 * defaults filled in; the input is not modified. A null schema accepts any
 * JSON object. Null-prototype schemas/params (from the literal parser) work.
 * Compiled schemas are cached by their JSON text.
 *
 * @throws RyeError PARAMS_INVALID when params are not a JSON object or break
 *   the schema; `details.issues: ParamsIssue[]` lists every violation.
 * @throws RyeError EXECUTOR_CONFIG_INVALID when the schema is not an object or
 *   does not compile.
 */
export function validateParams(
  params: unknown,
  schema: Readonly<Record<string, unknown>> | null,
  source: string,
): Record<string, unknown> {
  if (schema !== null && !isPlainObject(schema)) {
    throw new RyeError(
      'EXECUTOR_CONFIG_INVALID',
      `Cannot use config_schema of ${source}: it must be an object, got ${describe(schema)}`,
      { source },
    );
  }
  if (!isPlainObject(params)) {
    const message = `params must be a JSON object, got ${describe(params)}`;
    fail(source, message, [{ path: '/', message }]);
  }
  let copy: Record<string, unknown>;
  try {
    copy = jsonCopy(params) as Record<string, unknown>;
  } catch (cause) {
    const message = `params are not JSON (${cause instanceof Error ? cause.message : String(cause)})`;
    fail(source, message, [{ path: '/', message }]);
  }
  if (schema === null) return copy;
  const validate = compile(schema, source);
  if (validate(copy)) return copy;
  const issues = (validate.errors ?? []).map(toIssue);
  const list = issues.map((issue) => `${issue.path} ${issue.message}`).join('; ');
  return fail(source, `params do not match config_schema: ${list}`, issues);
}
