/**
 * Find the interpreter a runtime asks for (`env_config.interpreter`). The only
 * I/O is probing candidate files; nothing is executed.
 */
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { delimiter, isAbsolute, resolve } from 'node:path';
import { RyeError } from '../errors/index.js';
import { renderString } from './template.js';
import type { EnvLookup } from './template.js';
import type { InterpreterConfig, TemplateVars } from './types.js';

/** What {@link resolveInterpreter} looks at besides the config. */
export interface InterpreterContext {
  readonly projectPath: string;
  readonly env: EnvLookup;
  readonly vars: Partial<TemplateVars>;
}

/** The chosen interpreter: `value` goes into `env[config.var]`. */
export interface ResolvedInterpreter {
  readonly value: string;
  /** env: the user set `var`; found: a probed file; fallback: `fallback` as written. */
  readonly source: 'env' | 'found' | 'fallback';
  /** The probed file when `source` is `found`, else null. */
  readonly path: string | null;
}

const UNRESOLVED_RE = /\{[A-Za-z_][A-Za-z0-9_]*\}/;
const isWindows = process.platform === 'win32';

async function isExecutableFile(path: string): Promise<boolean> {
  try {
    if (!(await stat(path)).isFile()) return false;
    // Windows has no execute bit; X_OK there only tests existence.
    await access(path, isWindows ? constants.F_OK : constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}

function binaryNames(config: InterpreterConfig): string[] {
  const names = [config.binary, ...config.candidates].filter((n): n is string => n !== null);
  // A node_modules interpreter may name only its fallback (`node`): look for that.
  if (names.length === 0 && config.fallback !== null && !/[\\/]/.test(config.fallback)) {
    names.push(config.fallback);
  }
  return unique(isWindows ? names.flatMap((n) => [n, `${n}.exe`, `${n}.cmd`]) : names);
}

function searchRoots(config: InterpreterConfig, ctx: InterpreterContext): string[] {
  if (config.type === 'system') {
    const pathVar = ctx.env['PATH'] ?? '';
    return unique(pathVar.split(delimiter).filter((dir) => dir !== '' && isAbsolute(dir)));
  }
  const rendered = config.searchRoots
    .map((root) => renderString(root, ctx.env, ctx.vars))
    // A root whose variable is not available (e.g. {anchor_path} when no anchor applies) is skipped.
    .filter((root) => root !== '' && !UNRESOLVED_RE.test(root))
    .map((root) => resolve(ctx.projectPath, root));
  return unique([...rendered, resolve(ctx.projectPath)]);
}

/** Candidate files in probing order (see {@link resolveInterpreter}). */
export function planInterpreterProbes(
  config: InterpreterConfig,
  ctx: InterpreterContext,
): string[] {
  if (config.type === 'venv_python') {
    const venv = resolve(ctx.projectPath, config.venvPath);
    const posix = resolve(venv, 'bin', 'python');
    return isWindows ? [resolve(venv, 'Scripts', 'python.exe'), posix] : [posix];
  }
  const folders = config.type === 'system' ? ['.'] : config.searchPaths;
  const names = binaryNames(config);
  return unique(
    searchRoots(config, ctx).flatMap((root) =>
      folders.flatMap((folder) => names.map((name) => resolve(root, folder, name))),
    ),
  );
}

/**
 * Choose the interpreter, first match wins:
 * 1. `env[config.var]`, when set and non-empty (the user's override);
 * 2. the first existing executable regular file among the probes:
 *    - venv_python: `<project>/<venv_path>/bin/python` (on win32
 *      `Scripts/python.exe` first);
 *    - local_binary / node_modules: each search root (templates rendered with
 *      `vars` and `${ENV}`; relative to the project; roots with an unknown
 *      `{var}` skipped), then the project itself × each search path ×
 *      `binary`, then each candidate (on win32 also `.exe`, `.cmd`);
 *    - system: each absolute `PATH` folder × `binary`, candidates;
 * 3. `fallback`, returned as written (the spawn looks it up on PATH).
 *
 * @throws RyeError EXECUTE_COMMAND_NOT_FOUND when nothing matches and there is
 *   no fallback; `details.probed` lists the files tried.
 */
export async function resolveInterpreter(
  config: InterpreterConfig,
  ctx: InterpreterContext,
): Promise<ResolvedInterpreter> {
  const preset = Object.hasOwn(ctx.env, config.var) ? ctx.env[config.var] : undefined;
  if (preset !== undefined && preset !== '') return { value: preset, source: 'env', path: null };
  const probes = planInterpreterProbes(config, ctx);
  for (const probe of probes) {
    if (await isExecutableFile(probe)) return { value: probe, source: 'found', path: probe };
  }
  if (config.fallback !== null) return { value: config.fallback, source: 'fallback', path: null };
  throw new RyeError(
    'EXECUTE_COMMAND_NOT_FOUND',
    `Cannot find the ${config.type} interpreter for ${config.var}: none of ${probes.length} candidates exists and there is no fallback`,
    { var: config.var, type: config.type, probed: probes },
  );
}
