/**
 * Build a tool's process environment from its executor chain (architecture
 * step 7, docs/environment.md). Pure except for the interpreter file probes.
 */
import { resolveInterpreter } from './interpreter.js';
import type { ResolvedInterpreter } from './interpreter.js';
import { RyeError } from '../../errors/index.js';
import { isLoaderEnvName } from './loader-env.js';
import { envNamesIn, expandEnvVars } from './template.js';
import type { ChainElement, TemplateVars } from '../types.js';

/** Everything {@link resolveEnvironment} needs; the caller reads the files. */
export interface EnvironmentInput {
  /** Index 0 is the tool, the last element is the primitive. */
  readonly chain: readonly ChainElement[];
  readonly projectPath: string;
  /** The user's own process environment (usually `process.env`). */
  readonly baseEnv: Readonly<Record<string, string | undefined>>;
  /**
   * Entries of the project `.env` when it is signed by a trusted key (see
   * `readProjectDotenv`), else null. Never the entries of an unsigned file.
   */
  readonly dotenv: Readonly<Record<string, string>> | null;
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
  /** Names taken from the signed `.env`, sorted (values withheld: they may be secrets). */
  readonly dotenvApplied: readonly string[];
}

/** Every name the chain's signed `env_config.dotenv` lists, sorted. */
export function declaredDotenvNames(chain: readonly ChainElement[]): string[] {
  const names = new Set(chain.flatMap((element) => element.envConfig?.dotenv ?? []));
  // Defence in depth: env-config refuses loader names when it parses a declaration.
  return [...names].filter((name) => !isLoaderEnvName(name)).sort();
}

/**
 * Resolve the environment, in this order:
 * 1. copy `baseEnv` (undefined entries dropped);
 * 2. resolve the interpreter of the element nearest the tool that declares one
 *    (a tool's own interpreter overrides its runtime's) against that copy
 *    alone: only signed config and the user's own environment choose it;
 * 3. add the signed `.env` entries whose names the chain declares in
 *    `env_config.dotenv` and that the real environment does not set (the real
 *    environment wins, as with `dotenv`); every other entry is dropped;
 * 4. set the interpreter's `var` to the absolute path chosen;
 * 5. apply `env_config.env` maps from the primitive toward the tool, so a
 *    runtime's env overrides its primitive's and the tool's own env overrides
 *    its runtime's (the Python implementation applied them the other way).
 *    Each value is `${VAR}`-expanded once against the env built so far
 *    (including earlier keys of the same map); `{name}` templates in env values
 *    are not rendered and an expanded value is never expanded again. A map
 *    that would build a loader name (`PYTHONPATH`, `NODE_OPTIONS`, …) from a
 *    value taken from `.env`, directly or through another env entry, is
 *    refused: the deny-list cannot be laundered through a signed env map.
 *
 * @throws RyeError EXECUTE_COMMAND_NOT_FOUND from `resolveInterpreter` when no
 *   interpreter can be found; EXECUTOR_DOTENV_REFUSED for such a map.
 */
export async function resolveEnvironment(input: EnvironmentInput): Promise<ResolvedEnvironment> {
  const env: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [key, value] of Object.entries(input.baseEnv)) {
    if (value !== undefined) env[key] = value;
  }

  let interpreter: EnvironmentInterpreter | null = null;
  const declaring = input.chain.find((element) => element.envConfig?.interpreter);
  const config = declaring?.envConfig?.interpreter;
  if (declaring !== undefined && config) {
    const ctx = { projectPath: input.projectPath, env: { ...env }, vars: input.vars };
    const resolved = await resolveInterpreter(config, ctx);
    interpreter = { ...resolved, var: config.var, declaredBy: declaring.itemId };
  }

  const dotenvApplied: string[] = [];
  const dotenv = input.dotenv;
  if (dotenv !== null) {
    for (const name of declaredDotenvNames(input.chain)) {
      if (!Object.hasOwn(dotenv, name) || Object.hasOwn(env, name)) continue;
      if (name === interpreter?.var) continue;
      env[name] = dotenv[name] as string;
      dotenvApplied.push(name);
    }
  }
  if (interpreter !== null) env[interpreter.var] = interpreter.value;

  // Names whose value came from .env, directly or through an env map: a
  // loader name may not be built from one, whichever element declared it.
  const fromDotenv = new Set(dotenvApplied);
  for (const element of [...input.chain].reverse()) {
    for (const [key, value] of Object.entries(element.envConfig?.env ?? {})) {
      const tainted = envNamesIn(value).filter((name) => fromDotenv.has(name));
      if (tainted.length > 0 && isLoaderEnvName(key)) throw laundered(element, key, tainted);
      env[key] = expandEnvVars(value, env);
      if (tainted.length > 0) fromDotenv.add(key);
      else fromDotenv.delete(key);
    }
  }
  return { env, interpreter, dotenvApplied };
}

function laundered(element: ChainElement, key: string, names: readonly string[]): RyeError {
  return new RyeError(
    'EXECUTOR_DOTENV_REFUSED',
    `Cannot build the environment: env_config.env of ${element.itemId} sets ${key} from ${names.join(', ')}, taken from .env; names that steer an interpreter or loader are never taken from .env`,
    { item_id: element.itemId, name: key, from: names },
  );
}
