/**
 * Parse a tool's or runtime's raw `env_config` (untrusted: from YAML or a
 * Python/JS literal) into {@link EnvConfig}. Every problem is collected, then
 * reported once.
 */
import { RyeError } from '../../errors/index.js';
import { FieldReader, type FieldProblem, type JsonObject } from '../../platform/index.js';
import { isLoaderEnvName } from './loader-env.js';
import type { EnvConfig, InterpreterConfig } from '../types.js';

/** One problem found in an `env_config`; `field` is a dotted path. */
export interface EnvConfigIssue {
  readonly field: string;
  readonly message: string;
}

type InterpreterType = InterpreterConfig['type'];

/** Names a variable may have: what POSIX shells accept. */
export const ENV_NAME_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;

const ENV_CONFIG_KEYS = ['interpreter', 'env', 'dotenv'];
const COMMON_KEYS = ['type', 'var', 'fallback'];
const SEARCH_KEYS = ['binary', 'candidates', 'search_paths', 'search_roots'];
const KEYS_BY_TYPE: Readonly<Record<InterpreterType, readonly string[]>> = {
  venv_python: [...COMMON_KEYS, 'venv_path'],
  local_binary: [...COMMON_KEYS, ...SEARCH_KEYS],
  node_modules: [...COMMON_KEYS, ...SEARCH_KEYS],
  system: [...COMMON_KEYS, 'binary', 'candidates'],
};
// Spelling used by some Python-era runtime YAMLs for the same behaviour.
const TYPE_ALIASES: Readonly<Record<string, InterpreterType>> = { system_binary: 'system' };

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'string') return JSON.stringify(value.slice(0, 40));
  return Array.isArray(value) ? 'a list' : `a ${typeof value}`;
}

/** Collects every problem; reads go through platform's FieldReader, worded here. */
class Collector {
  readonly issues: EnvConfigIssue[] = [];
  readonly read = new FieldReader((field, problem) => this.add(field, wording(problem)));
  add(field: string, message: string): void {
    this.issues.push({ field, message });
  }
  /** A non-empty string without NUL, or null when absent (missing/null). */
  text(obj: JsonObject, key: string, field: string): string | null {
    return this.read.string(obj, key, field, TEXT) ?? null;
  }
  list(obj: JsonObject, key: string, field: string): string[] | null {
    const list = this.read.strings(obj, key, field, TEXT);
    return list === undefined ? null : [...list];
  }
}

const TEXT = { absent: 'nullish', nonEmpty: true, noNul: true } as const;

function wording(problem: FieldProblem): string {
  if (problem.kind === 'unknown_key') return 'is not a known key';
  if (problem.kind === 'type' && problem.expected === 'object')
    return `must be a mapping, got ${describe(problem.actual)}`;
  if (problem.kind === 'type' && problem.expected === 'array')
    return `must be a list of strings, got ${describe(problem.actual)}`;
  if (problem.kind === 'type' || problem.kind === 'empty')
    return `must be a non-empty string, got ${describe(problem.actual)}`;
  return problem.kind;
}

function interpreterType(raw: unknown): InterpreterType | null {
  if (typeof raw !== 'string') return null;
  if (Object.hasOwn(TYPE_ALIASES, raw)) return TYPE_ALIASES[raw] ?? null;
  return Object.hasOwn(KEYS_BY_TYPE, raw) ? (raw as InterpreterType) : null;
}

function parseInterpreter(raw: unknown, c: Collector): InterpreterConfig | null {
  const field = 'env_config.interpreter';
  if (raw === undefined || raw === null) return null;
  const obj = c.read.object(raw, field);
  if (obj === undefined) return null;
  const type = interpreterType(obj['type']);
  if (type === null) {
    const known = Object.keys(KEYS_BY_TYPE).join(', ');
    c.add(`${field}.type`, `must be one of ${known}, got ${describe(obj['type'])}`);
  }
  for (const key of Object.keys(obj)) {
    if (type !== null && !KEYS_BY_TYPE[type].includes(key)) {
      c.add(`${field}.${key}`, `is not a known key for interpreter type ${type}`);
    }
  }
  const variable = c.text(obj, 'var', field);
  const absent = (key: string): boolean => obj[key] === undefined || obj[key] === null;
  if (absent('var')) c.add(`${field}.var`, 'is required');
  else if (variable !== null && !ENV_NAME_RE.test(variable)) {
    c.add(`${field}.var`, `must look like an environment variable name, got ${variable}`);
  }
  const binary = c.text(obj, 'binary', field);
  const fallback = c.text(obj, 'fallback', field);
  const searchPaths = c.list(obj, 'search_paths', field);
  if (type === 'local_binary' && absent('binary')) c.add(`${field}.binary`, 'is required');
  const noPaths =
    absent('search_paths') ||
    (Array.isArray(obj['search_paths']) && obj['search_paths'].length === 0);
  if (type === 'local_binary' && noPaths) {
    c.add(`${field}.search_paths`, 'must list at least one folder');
  }
  if (type === 'system' && absent('binary') && absent('fallback')) {
    c.add(`${field}.fallback`, 'is required for a system interpreter');
  }
  if (type === null || variable === null) return null;
  return {
    type,
    var: variable,
    binary,
    candidates: c.list(obj, 'candidates', field) ?? [],
    searchPaths: searchPaths ?? (type === 'node_modules' ? ['node_modules/.bin'] : []),
    searchRoots: c.list(obj, 'search_roots', field) ?? [],
    venvPath: c.text(obj, 'venv_path', field) ?? '.venv',
    fallback,
  };
}

/**
 * `env_config.dotenv`: the names this element lets a signed project `.env`
 * supply. A name that steers an interpreter or loader is refused here, so no
 * signer can open that door (see loader-env.ts).
 */
function parseDotenvNames(raw: unknown, c: Collector): string[] {
  const field = 'env_config.dotenv';
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) {
    c.add(field, `must be a list of variable names, got ${describe(raw)}`);
    return [];
  }
  const names = raw.flatMap((name: unknown, i) => {
    if (typeof name !== 'string' || !ENV_NAME_RE.test(name)) {
      c.add(`${field}[${i}]`, `must look like an environment variable name, got ${describe(name)}`);
      return [];
    }
    if (isLoaderEnvName(name)) {
      c.add(
        `${field}[${i}]`,
        `names ${name}, which steers an interpreter or loader and is never taken from .env`,
      );
      return [];
    }
    return [name];
  });
  return [...new Set(names)];
}

function parseEnvMap(raw: unknown, c: Collector): Record<string, string> {
  const env: Record<string, string> = Object.create(null) as Record<string, string>;
  if (raw === undefined || raw === null) return env;
  const obj = c.read.object(raw, 'env_config.env');
  if (obj === undefined) return env;
  for (const [key, value] of Object.entries(obj)) {
    const field = `env_config.env.${key}`;
    if (!ENV_NAME_RE.test(key)) c.add(field, 'is not a valid environment variable name');
    else if (typeof value === 'string' && !value.includes('\0')) env[key] = value;
    else if (typeof value === 'boolean' || (typeof value === 'number' && isFinite(value))) {
      env[key] = String(value);
    } else c.add(field, `must be a string, number or boolean, got ${describe(value)}`);
  }
  return env;
}

/**
 * Turn a raw `env_config` into an {@link EnvConfig}; `null`/`undefined` → null.
 * Interpreter types: `venv_python` (`venv_path`, default `.venv`),
 * `local_binary` (`binary` and `search_paths` required; `candidates`,
 * `search_roots`), `node_modules` (`search_paths` default `node_modules/.bin`,
 * `binary`, `candidates`, `search_roots`), `system` (alias `system_binary`:
 * `binary`/`candidates` looked up on PATH, then `fallback`). `var` is required
 * and must look like an env var name. `env` values may be strings, numbers or
 * booleans (the latter two become strings). `dotenv` lists the names a signed
 * project `.env` may supply (duplicates dropped); names on the loader
 * deny-list (`LOADER_ENV_NAMES`) are refused. Unknown keys are refused so a
 * typo cannot silently disable a setting. Accepts null-prototype objects.
 *
 * @throws RyeError EXECUTOR_CONFIG_INVALID naming `source`, with
 *   `details.issues: EnvConfigIssue[]` listing every problem.
 */
export function parseEnvConfig(raw: unknown, source: string): EnvConfig | null {
  if (raw === undefined || raw === null) return null;
  const c = new Collector();
  let result: EnvConfig | null = null;
  const obj = c.read.object(raw, 'env_config');
  if (obj !== undefined) {
    c.read.knownKeys(obj, 'env_config', ENV_CONFIG_KEYS);
    result = {
      interpreter: parseInterpreter(obj['interpreter'], c),
      env: parseEnvMap(obj['env'], c),
      dotenv: parseDotenvNames(obj['dotenv'], c),
    };
  }
  if (c.issues.length > 0 || result === null) {
    const list = c.issues.map((issue) => `${issue.field} ${issue.message}`).join('; ');
    throw new RyeError('EXECUTOR_CONFIG_INVALID', `Cannot use env_config of ${source}: ${list}`, {
      source,
      issues: c.issues,
    });
  }
  return result;
}
