/**
 * Single-pass substitution of `${VAR}` / `${VAR:-default}` (environment) and
 * `{name}` (template variables) in executor configs.
 *
 * Every function here makes ONE left-to-right pass over the original text:
 * text that was inserted (an env value, a default, a variable such as
 * `{params_json}`) is never looked at again. So a param value holding `${HOME}`
 * stays literal, and an env value holding `{tool_path}` stays literal too.
 */
import { RyeError } from '../../errors/index.js';
import { isJsonObject } from '../../platform/index.js';
import type { TemplateVars } from '../types.js';

/** Environment lookups: missing and `undefined` both mean "unset". */
export type EnvLookup = Readonly<Record<string, string | undefined>>;

// Env names are upper-case only (as in the Python implementation) so that
// JavaScript template literals (`${name}`) and context templates
// (`${state.issues}`) embedded in configs are left alone.
const ENV_PART = String.raw`\$\{([A-Z_][A-Z0-9_]*)(?::-([^}]*))?\}`;
const VAR_PART = String.raw`\{([A-Za-z_][A-Za-z0-9_]*)\}`;
const ENV_RE = new RegExp(ENV_PART, 'g');
const VAR_RE = new RegExp(VAR_PART, 'g');
const BOTH_RE = new RegExp(`${ENV_PART}|${VAR_PART}`, 'g');

/** Deepest nesting renderValue() accepts (also stops reference cycles). */
const MAX_DEPTH = 64;

function lookupEnv(env: EnvLookup, name: string, fallback: string | undefined): string {
  const value = Object.hasOwn(env, name) ? env[name] : undefined;
  if (fallback !== undefined) return value === undefined || value === '' ? fallback : value;
  return value ?? '';
}

function lookupVar(vars: Partial<TemplateVars>, name: string, original: string): string {
  const value = Object.hasOwn(vars, name) ? vars[name] : undefined;
  return typeof value === 'string' ? value : original;
}

/**
 * Expand `${VAR}` (unset → '') and `${VAR:-default}` (default when unset or
 * empty). `VAR` is `[A-Z_][A-Z0-9_]*`; `$VAR` without braces and lower-case
 * names are left as written. Pure; never throws.
 */
export function expandEnvVars(text: string, env: EnvLookup): string {
  return text.replace(ENV_RE, (_m, name: string, fallback: string | undefined) =>
    lookupEnv(env, name, fallback),
  );
}

/** The names `${VAR}` / `${VAR:-default}` references in `text`, in order, once each. Pure. */
export function envNamesIn(text: string): string[] {
  return [...new Set(Array.from(text.matchAll(ENV_RE), (match) => match[1] as string))];
}

/**
 * Replace `{name}` for names present in `vars` (identifier characters only).
 * Anything else (`{}`, `{ x }`, `{unknown}`, JSON braces in embedded code) is
 * left untouched. Pure; never throws.
 */
export function renderTemplate(text: string, vars: Partial<TemplateVars>): string {
  return text.replace(VAR_RE, (match, name: string) => lookupVar(vars, name, match));
}

/**
 * Both substitutions in one pass over `text` (see the module comment): an
 * inserted value is never re-expanded, whichever substitution inserted it.
 */
export function renderString(text: string, env: EnvLookup, vars: Partial<TemplateVars>): string {
  return text.replace(
    BOTH_RE,
    (
      match,
      envName: string | undefined,
      fallback: string | undefined,
      varName: string | undefined,
    ) =>
      envName !== undefined
        ? lookupEnv(env, envName, fallback)
        : lookupVar(vars, varName ?? '', match),
  );
}

/** A plain `{}` object (JSON- or YAML-made), not an array, class instance or null. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return isJsonObject(value);
}

function renderAt(
  value: unknown,
  env: EnvLookup,
  vars: Partial<TemplateVars>,
  depth: number,
): unknown {
  if (depth > MAX_DEPTH) {
    throw new RyeError(
      'EXECUTOR_CONFIG_INVALID',
      `Cannot render config: nested deeper than ${MAX_DEPTH} levels (or cyclic)`,
      { maxDepth: MAX_DEPTH },
    );
  }
  if (typeof value === 'string') return renderString(value, env, vars);
  if (Array.isArray(value)) return value.map((item) => renderAt(item, env, vars, depth + 1));
  if (isPlainObject(value)) {
    // Keys are names, not data: they are kept as written.
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, renderAt(item, env, vars, depth + 1)]),
    );
  }
  return value;
}

/**
 * Deep-render every string inside arrays / plain objects (null-prototype too)
 * with {@link renderString}; other values are returned as they are. Returns new
 * containers (the input is not modified) of the same shape.
 *
 * @throws RyeError EXECUTOR_CONFIG_INVALID when nested deeper than 64 levels.
 */
export function renderValue<T>(value: T, env: EnvLookup, vars: Partial<TemplateVars>): T {
  return renderAt(value, env, vars, 0) as T;
}
