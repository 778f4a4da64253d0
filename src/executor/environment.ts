/**
 * Build a tool's process environment from its executor chain (architecture
 * step 7). Pure except for the interpreter file probes.
 */
import { parseDotenvDetailed } from './dotenv.js';
import { resolveInterpreter } from './interpreter.js';
import type { ResolvedInterpreter } from './interpreter.js';
import { expandEnvVars } from './template.js';
import type { ChainElement, TemplateVars } from './types.js';

/** Everything {@link resolveEnvironment} needs; the caller reads the files. */
export interface EnvironmentInput {
  /** Index 0 is the tool, the last element is the primitive. */
  readonly chain: readonly ChainElement[];
  readonly projectPath: string;
  /** Usually `process.env`. */
  readonly baseEnv: Readonly<Record<string, string | undefined>>;
  /** Text of the project's `.env`, or null when there is none. */
  readonly dotenvText: string | null;
  readonly vars: Partial<TemplateVars>;
}

/** The interpreter chosen, with the variable it was stored in. */
export interface EnvironmentInterpreter extends ResolvedInterpreter {
  readonly var: string;
  /** Item id of the chain element that declared the interpreter. */
  readonly declaredBy: string;
}

/** Result of {@link resolveEnvironment}. */
export interface ResolvedEnvironment {
  /** Null-prototype record of the final environment. */
  readonly env: Record<string, string>;
  readonly interpreter: EnvironmentInterpreter | null;
  /** E.g. skipped `.env` lines (by number, never their content). */
  readonly warnings: readonly string[];
}

/**
 * Resolve the environment, in this order:
 * 1. copy `baseEnv` (undefined entries dropped);
 * 2. add `.env` entries whose key is not already set — the real environment
 *    wins, as with `dotenv`;
 * 3. resolve the interpreter of the element nearest the tool that declares one
 *    (a tool's own interpreter overrides its runtime's) and set its `var`
 *    (an already-set `var` is kept: see `resolveInterpreter`);
 * 4. apply `env_config.env` maps from the primitive toward the tool, so a
 *    runtime's env overrides its primitive's and the tool's own env overrides
 *    its runtime's (the Python implementation applied them the other way).
 *    Each value is `${VAR}`-expanded once against the env built so far
 *    (including earlier keys of the same map); `{name}` templates in env values
 *    are not rendered and an expanded value is never expanded again.
 *
 * @throws RyeError EXECUTE_COMMAND_NOT_FOUND from `resolveInterpreter` when an
 *   interpreter has no match and no fallback.
 */
export async function resolveEnvironment(input: EnvironmentInput): Promise<ResolvedEnvironment> {
  const env: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [key, value] of Object.entries(input.baseEnv)) {
    if (value !== undefined) env[key] = value;
  }

  const warnings: string[] = [];
  if (input.dotenvText !== null) {
    const dotenv = parseDotenvDetailed(input.dotenvText);
    warnings.push(...dotenv.warnings);
    for (const [key, value] of Object.entries(dotenv.entries)) {
      if (!Object.hasOwn(env, key)) env[key] = value;
    }
  }

  let interpreter: EnvironmentInterpreter | null = null;
  const declaring = input.chain.find((element) => element.envConfig?.interpreter);
  const config = declaring?.envConfig?.interpreter;
  if (declaring !== undefined && config) {
    const ctx = { projectPath: input.projectPath, env, vars: input.vars };
    const resolved = await resolveInterpreter(config, ctx);
    env[config.var] = resolved.value;
    interpreter = { ...resolved, var: config.var, declaredBy: declaring.itemId };
  }

  for (const element of [...input.chain].reverse()) {
    for (const [key, value] of Object.entries(element.envConfig?.env ?? {})) {
      env[key] = expandEnvVars(value, env);
    }
  }
  return { env, interpreter, warnings };
}
