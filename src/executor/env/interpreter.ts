/**
 * Find the interpreter a runtime asks for (`env_config.interpreter`). The only
 * I/O is probing candidate files; nothing is executed. Whatever is chosen is
 * an absolute path: the spawn never looks a bare name up on PATH itself.
 */
import { isAbsolute, resolve } from 'node:path';
import { RyeError } from '../../errors/index.js';
import {
  absolutePathDirs,
  executableNames,
  findOnPath,
  isBareCommand,
  isExecutableFile,
} from './path-lookup.js';
import { renderString } from './template.js';
import type { EnvLookup } from './template.js';
import type { InterpreterConfig, TemplateVars } from '../types.js';

/** What {@link resolveInterpreter} looks at besides the config. */
export interface InterpreterContext {
  readonly projectPath: string;
  /**
   * The user's own process environment (never the project `.env`): it may
   * name the interpreter in `var`, and its absolute PATH folders are searched.
   */
  readonly env: EnvLookup;
  readonly vars: Partial<TemplateVars>;
}

/** The chosen interpreter: `value` goes into `env[config.var]`. */
export interface ResolvedInterpreter {
  readonly value: string;
  /** env: the user set `var`; found: a probed file; fallback: the config's `fallback`. */
  readonly source: 'env' | 'found' | 'fallback';
  /** The file rye found (a probe, or a bare name looked up on PATH), else null. */
  readonly path: string | null;
}

const UNRESOLVED_RE = /\{[A-Za-z_][A-Za-z0-9_]*\}/;
const isWindows = process.platform === 'win32';

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}

function binaryNames(config: InterpreterConfig): string[] {
  const names = [config.binary, ...config.candidates].filter((n): n is string => n !== null);
  // A node_modules interpreter may name only its fallback (`node`): look for that.
  if (names.length === 0 && config.fallback !== null && isBareCommand(config.fallback)) {
    names.push(config.fallback);
  }
  return unique(names.flatMap(executableNames));
}

function searchRoots(config: InterpreterConfig, ctx: InterpreterContext): string[] {
  if (config.type === 'system') return absolutePathDirs(ctx.env['PATH']);
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
 * 1. `env[config.var]`, when set and non-empty: the user's own choice, from
 *    their process environment (the caller never passes the project `.env`);
 * 2. the first existing executable regular file among the probes:
 *    - venv_python: `<project>/<venv_path>/bin/python` (on win32
 *      `Scripts/python.exe` first) — a folder the project controls, so only a
 *      runtime whose signer accepts an unauthenticated venv uses this type;
 *    - local_binary / node_modules: each search root (templates rendered with
 *      `vars` and `${ENV}`; relative to the project; roots with an unknown
 *      `{var}` skipped), then the project itself × each search path ×
 *      `binary`, then each candidate (on win32 also `.exe`, `.cmd`);
 *    - system: each absolute `PATH` folder × `binary`, candidates;
 * 3. `fallback`.
 * A bare name from 1 or 3 (`python3`) is looked up in the absolute PATH
 * folders only (an empty or relative entry would let the working directory
 * supply it); another relative path is made absolute (1: against this
 * process's working directory, 3: against the project). So the value is
 * always absolute and the spawn does no PATH lookup of its own.
 *
 * @throws RyeError EXECUTE_COMMAND_NOT_FOUND when nothing matches and there is
 *   no fallback, or a bare name is on no absolute PATH folder; `details.probed`
 *   lists the files tried.
 */
export async function resolveInterpreter(
  config: InterpreterConfig,
  ctx: InterpreterContext,
): Promise<ResolvedInterpreter> {
  const preset = Object.hasOwn(ctx.env, config.var) ? ctx.env[config.var] : undefined;
  if (preset !== undefined && preset !== '') {
    return absolute(preset, 'env', resolve(preset), config, ctx, []);
  }
  const probes = planInterpreterProbes(config, ctx);
  for (const probe of probes) {
    if (await isExecutableFile(probe)) return { value: probe, source: 'found', path: probe };
  }
  if (config.fallback !== null) {
    const fallback = config.fallback;
    return absolute(fallback, 'fallback', resolve(ctx.projectPath, fallback), config, ctx, probes);
  }
  throw notFound(
    config,
    `none of ${probes.length} candidates exists and there is no fallback`,
    probes,
  );
}

/** `value` as an absolute path: kept, looked up on PATH (bare), or `relative` resolved. */
async function absolute(
  value: string,
  source: 'env' | 'fallback',
  relative: string,
  config: InterpreterConfig,
  ctx: InterpreterContext,
  probed: string[],
): Promise<ResolvedInterpreter> {
  if (isAbsolute(value)) return { value, source, path: null };
  if (!isBareCommand(value)) return { value: relative, source, path: null };
  const found = await findOnPath(value, ctx.env['PATH'], probed);
  if (found !== null) return { value: found, source, path: found };
  const from = source === 'env' ? `${config.var} names` : 'its fallback is';
  throw notFound(config, `${from} ${value}, which is on no absolute PATH folder`, probed);
}

function notFound(config: InterpreterConfig, why: string, probed: string[]): RyeError {
  return new RyeError(
    'EXECUTE_COMMAND_NOT_FOUND',
    `Cannot find the ${config.type} interpreter for ${config.var}: ${why}`,
    { var: config.var, type: config.type, probed: unique(probed) },
  );
}
