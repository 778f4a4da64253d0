import { RyeError } from '../errors/index.js';
import type { TrustSet } from '../integrity/index.js';
import type { Spaces } from '../items/index.js';
import { anchorCwd, applyAnchorEnv } from './chain/anchor.js';
import { resolveEnvironment } from './env/environment.js';
import { validateParams } from './run/params.js';
import { findOnPath, isBareCommand } from './env/path-lookup.js';
import { PRIMITIVES, mergeChainConfig, planHttp, planSubprocess } from './run/primitive-config.js';
import { describeDotenv, readProjectDotenv } from './env/project-dotenv.js';
import type { EffectivePermissions, SandboxMode } from './sandbox/index.js';
import type {
  AnchorConfig,
  ChainElement,
  HttpRequest,
  SubprocessRequest,
  TemplateVars,
} from './types.js';

/** What a dry run prints, and what a run is about to do. */
export interface ExecutionPlan {
  readonly primitive: string;
  readonly argv: readonly string[] | null;
  readonly url: string | null;
  readonly cwd: string | null;
  /** Variables rye set or changed (values withheld: they may be secrets). */
  readonly env_keys: readonly string[];
  /** What the project `.env` contributed: `absent`, `ignored: unsigned` or `applied: A, B` (names only). */
  readonly dotenv: string;
  readonly timeout_ms: number;
  readonly anchor: { readonly applied: boolean; readonly path: string | null };
  readonly files_verified: readonly string[];
  /** True when a trusted lockfile's hashes stood in for per-file signature checks. */
  readonly lockfile_fast_path: boolean;
  /** The read-only verified snapshot the tool runs from (null for HTTP tools). */
  readonly snapshot: string | null;
  /** Files in the tool's scope that nothing authenticates, left out of the snapshot (scope-relative). */
  readonly files_left_out: readonly string[];
  /** The sandbox the tool runs in and its effective permissions (null for HTTP tools, which run in process). */
  readonly sandbox: PlannedSandbox | null;
}

/**
 * A run's sandbox as a plan shows it (docs/sandbox.md): the mode and the
 * effective permissions, with what the caller's grants took away.
 */
export interface PlannedSandbox extends Omit<EffectivePermissions, 'maxFileMb'> {
  readonly mode: SandboxMode;
  readonly max_file_mb: number;
  /** The bwrap arguments (a dry run with the sandbox on): what `--explain-sandbox` prints. */
  readonly argv?: readonly string[];
}

export type PrimitiveRequest =
  | {
      readonly kind: 'subprocess';
      readonly request: SubprocessRequest;
      /**
       * Names of `request.env` that signed configuration set (the chain's env
       * maps, the interpreter variable, anchor paths, the signed `.env`): what
       * a sandbox's environment, built from nothing, keeps.
       */
      readonly signedEnvNames: readonly string[];
    }
  | { readonly kind: 'http'; readonly request: HttpRequest };

export interface PlanInput {
  readonly spaces: Spaces;
  readonly chain: readonly ChainElement[];
  readonly anchor: AnchorConfig | null;
  readonly vars: TemplateVars;
  readonly baseEnv: Readonly<Record<string, string | undefined>>;
  /** Keys that may sign the project `.env` (see `loadDotenvTrust`). */
  /** The keys that may sign the project `.env` (read only when there is one). */
  readonly dotenvTrust: TrustSet | (() => Promise<TrustSet>);
  readonly params: unknown;
  readonly filesVerified: readonly string[];
  readonly fastPath: boolean;
  readonly snapshot: string | null;
  readonly filesLeftOut: readonly string[];
  readonly sandbox: {
    readonly mode: SandboxMode;
    readonly permissions: EffectivePermissions;
  } | null;
}

/**
 * Steps 7–10: resolve the environment (then the anchor's path variables and
 * cwd), validate the params, and render the primitive's request.
 *
 * @throws RyeError PARAMS_INVALID, EXECUTOR_CONFIG_INVALID, EXECUTE_COMMAND_NOT_FOUND;
 *   for a project `.env` that is there but fails: its integrity code,
 *   EXECUTOR_DOTENV_REFUSED, FILE_UNREADABLE, FILE_TOO_LARGE, FILE_BINARY.
 */
export async function planRun(input: PlanInput): Promise<{
  plan: ExecutionPlan;
  run: PrimitiveRequest;
  /** The params as checked against the tool's `config_schema` (defaults applied). */
  params: Record<string, unknown>;
}> {
  const { spaces, chain, anchor, baseEnv } = input;
  const tool = chain[0] as ChainElement;
  const primitive = chain.at(-1) as ChainElement;
  // The project .env counts only when signed by a trusted key; a signature
  // that fails refuses the run here, before anything spawns.
  const dotenv = await readProjectDotenv(spaces.project, input.dotenvTrust);
  const resolved = await resolveEnvironment({
    chain,
    projectPath: spaces.project,
    baseEnv,
    dotenv: dotenv.status === 'signed' ? dotenv.entries : null,
    vars: input.vars,
  });
  const env = anchor === null ? resolved.env : applyAnchorEnv(anchor, resolved.env, input.vars);
  const cwd = (anchor === null ? null : anchorCwd(anchor, input.vars)) ?? spaces.project;
  const params = validateParams(input.params ?? {}, tool.configSchema, tool.itemId);
  const vars: TemplateVars = { ...input.vars, params_json: JSON.stringify(params) };
  const config = mergeChainConfig(chain);
  const common = {
    primitive: primitive.itemId,
    env_keys: Object.keys(env)
      .filter((k) => env[k] !== baseEnv[k])
      .sort(),
    dotenv: describeDotenv(dotenv, resolved.dotenvApplied),
    anchor: { applied: anchor !== null, path: anchor === null ? null : vars.anchor_path },
    files_verified: input.filesVerified,
    lockfile_fast_path: input.fastPath,
    snapshot: input.snapshot,
    files_left_out: input.filesLeftOut,
    sandbox: input.sandbox === null ? null : plannedSandbox(input.sandbox),
  };
  if (primitive.itemId === PRIMITIVES.httpClient) {
    const request = planHttp(config, { env, vars, params, source: tool.itemId });
    return {
      plan: { ...common, argv: null, url: request.url, cwd: null, timeout_ms: request.timeoutMs },
      run: { kind: 'http', request },
      params,
    };
  }
  const request = await absoluteCommand(
    planSubprocess(config, {
      toolExtension: tool.extension,
      env,
      vars,
      cwd,
      source: tool.itemId,
    }),
  );
  return {
    plan: {
      ...common,
      argv: [request.command, ...request.args],
      url: null,
      cwd: request.cwd,
      timeout_ms: request.timeoutMs,
    },
    params,
    run: {
      kind: 'subprocess',
      request,
      signedEnvNames: [
        ...new Set([
          ...(resolved.interpreter === null ? [] : [resolved.interpreter.var]),
          ...resolved.dotenvApplied,
          ...chain.flatMap((e) => Object.keys(e.envConfig?.env ?? {})),
          ...Object.keys(anchor?.envPaths ?? {}),
        ]),
      ],
    },
  };
}

/**
 * A bare command (`git`) becomes the absolute path found in an absolute PATH
 * folder of the run's environment: the spawn never does a lookup of its own,
 * where an empty or relative PATH entry would let the working directory (the
 * project) supply the program.
 *
 * @throws RyeError EXECUTE_COMMAND_NOT_FOUND
 */
async function absoluteCommand(request: SubprocessRequest): Promise<SubprocessRequest> {
  if (!isBareCommand(request.command)) return request;
  const probed: string[] = [];
  const found = await findOnPath(request.command, request.env['PATH'], probed);
  if (found !== null) return { ...request, command: found };
  throw new RyeError(
    'EXECUTE_COMMAND_NOT_FOUND',
    `Cannot run ${request.command}: it is in no absolute folder of PATH`,
    { command: request.command, probed },
  );
}

function plannedSandbox(sandbox: NonNullable<PlanInput['sandbox']>): PlannedSandbox {
  const { maxFileMb, ...shown } = sandbox.permissions;
  return { mode: sandbox.mode, ...shown, max_file_mb: maxFileMb };
}
