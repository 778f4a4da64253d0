import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { RyeError, isRyeError, type ErrorCode } from '../errors/index.js';
import { loadSpaceTrust, parseItemId, type Spaces } from '../items/index.js';
import type { TrustSet } from '../integrity/index.js';
import {
  anchorApplies,
  anchorContext,
  anchorCwd,
  applyAnchorEnv,
  findAnchorConfig,
  findVerifyDepsConfig,
  resolveAnchorPath,
} from './anchor.js';
import { buildChain } from './chain.js';
import { resolveEnvironment } from './environment.js';
import { validateParams } from './params.js';
import { PRIMITIVES, mergeChainConfig, planHttp, planSubprocess } from './primitive-config.js';
import { runHttpRequest } from './primitives/http-client.js';
import { runSubprocess } from './primitives/subprocess.js';
import { interpretOutput } from './tool-output.js';
import { tsLoaderUrl } from './ts-loader.js';
import type { ChainElement, TemplateVars } from './types.js';
import { verifyRuntimeLib } from './runtime-lib.js';
import { VerifiedFileCache, depsBase, verifyDependencies, type DepsReport } from './verify-deps.js';

export interface ExecuteOptions {
  readonly spaces: Spaces;
  readonly toolId: string;
  readonly params?: unknown;
  /** Build, verify and plan, but spawn nothing. */
  readonly dryRun?: boolean;
  /** Base environment (default process.env). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Trust set (default: the three spaces' trust stores). */
  readonly trust?: TrustSet;
  /** Verdict cache shared across executions (default: a process-wide cache). */
  readonly cache?: VerifiedFileCache;
}

/** One chain element as reported (and as a lockfile pins it). */
export interface ChainEntry {
  readonly item_id: string;
  readonly space: string;
  readonly tool_type: string | null;
  readonly executor_id: string | null;
  readonly integrity: string;
}

export interface ExecutionPlan {
  readonly primitive: string;
  readonly argv: readonly string[] | null;
  readonly url: string | null;
  readonly cwd: string | null;
  /** Variables rye set or changed (values withheld: they may be secrets). */
  readonly env_keys: readonly string[];
  readonly timeout_ms: number;
  readonly anchor: { readonly applied: boolean; readonly path: string | null };
  readonly files_verified: readonly string[];
}

export interface ExecuteResult {
  readonly status: 'success' | 'error';
  readonly item_id: string;
  readonly data: unknown;
  readonly error?: {
    readonly code: ErrorCode;
    readonly message: string;
    readonly details?: unknown;
  };
  readonly chain: readonly ChainEntry[];
  readonly plan?: ExecutionPlan;
  readonly metadata: {
    readonly duration_ms: number;
    readonly lockfile_used: boolean;
    readonly lockfile_created: boolean;
  };
}

const defaultCache = new VerifiedFileCache();

/**
 * Execute a tool through its verified chain (ARCHITECTURE.md, steps 2–11):
 * build and verify the chain, apply the anchor, verify every dependency file,
 * resolve the environment, validate params, render the primitive's config and
 * run it. Nothing is spawned unless every check passed.
 *
 * Refusals before the spawn are thrown (integrity codes, chain and config
 * errors, PARAMS_INVALID). Failures of the run itself (non-zero exit,
 * `"success": false`, timeout, command not found, HTTP failure) come back as a
 * result with `status: "error"`.
 */
export async function execute(options: ExecuteOptions): Promise<ExecuteResult> {
  const started = performance.now();
  const { spaces, toolId } = options;
  parseItemId(toolId);
  // RYE_CACHE_DIR: where runtimes keep caches that must not live in signed
  // folders (the Python runtimes' bytecode); the caller's value wins.
  const baseEnv: Readonly<Record<string, string | undefined>> = {
    RYE_CACHE_DIR: join(spaces.user, '.ai', 'cache'),
    ...(options.env ?? process.env),
  };
  const trust = options.trust ?? (await loadSpaceTrust(spaces)).trust;
  const cache = options.cache ?? defaultCache;

  const { chain } = await buildChain(spaces, toolId, trust);
  const tool = chain[0] as ChainElement;
  const primitive = chain.at(-1) as ChainElement;
  const chainEntries = chain.map(toEntry);
  if (primitive.itemId !== PRIMITIVES.subprocess && primitive.itemId !== PRIMITIVES.httpClient) {
    throw new RyeError(
      'EXECUTOR_PRIMITIVE_UNKNOWN',
      `Cannot run ${toolId}: no built-in primitive ${primitive.itemId}`,
      {
        primitive: primitive.itemId,
      },
    );
  }

  // Anchor (step 5) and dependency verification before anything runs (step 6).
  const anchorConfig = findAnchorConfig(chain);
  let vars: TemplateVars = {
    ...anchorContext(chain, {
      projectPath: spaces.project,
      userSpace: spaces.user,
      systemSpace: spaces.system,
      paramsJson: '',
    }),
    ts_loader: tsLoaderUrl(),
  };
  const applied = anchorConfig !== null && (await anchorApplies(anchorConfig, vars.tool_dir));
  if (applied) vars = { ...vars, anchor_path: resolveAnchorPath(anchorConfig, vars) };
  const verified: DepsReport[] = [];
  const depsConfig = findVerifyDepsConfig(chain);
  if (applied && depsConfig !== null && depsConfig.enabled) {
    const base = depsBase(depsConfig, tool.path, vars.anchor_path);
    if (base !== null)
      verified.push(await verifyDependencies({ base, config: depsConfig, trust, cache }));
  }
  // The runtime library is verified whenever the run can load from it: on the
  // anchor's paths, or named in the primitive's config (node_runtime's --import).
  const config = mergeChainConfig(chain);
  if (applied || JSON.stringify(config).includes('{runtime_lib}')) {
    const lib = await verifyRuntimeLib(vars.runtime_lib, trust, cache);
    if (lib !== null) verified.push(lib);
  }

  // Environment (7), anchor paths and cwd (8), params (9), config (10).
  const dotenvText = await readFile(join(spaces.project, '.env'), 'utf8').catch(() => null);
  const resolved = await resolveEnvironment({
    chain,
    projectPath: spaces.project,
    baseEnv,
    dotenvText,
    vars,
  });
  let env = resolved.env;
  if (applied) env = applyAnchorEnv(anchorConfig, env, vars);
  const cwd = (applied ? anchorCwd(anchorConfig, vars) : null) ?? spaces.project;
  const params = validateParams(options.params ?? {}, tool.configSchema, tool.itemId);
  vars = { ...vars, params_json: JSON.stringify(params) };
  const filesVerified = [
    ...chain.map((e) => e.path),
    ...verified.flatMap((r) => r.files.map((f) => f.absolutePath)),
  ];
  const envKeys = Object.keys(env)
    .filter((k) => env[k] !== baseEnv[k])
    .sort();

  const finish = (
    status: 'success' | 'error',
    data: unknown,
    extra: Partial<ExecuteResult> = {},
  ): ExecuteResult => ({
    status,
    item_id: toolId,
    data,
    ...extra,
    chain: chainEntries,
    metadata: {
      duration_ms: Math.round((performance.now() - started) * 10) / 10,
      lockfile_used: false,
      lockfile_created: false,
    },
  });

  if (primitive.itemId === PRIMITIVES.httpClient) {
    const request = planHttp(config, { env, vars, params, source: tool.itemId });
    const plan: ExecutionPlan = {
      primitive: primitive.itemId,
      argv: null,
      url: request.url,
      cwd: null,
      env_keys: envKeys,
      timeout_ms: request.timeoutMs,
      anchor: { applied, path: applied ? vars.anchor_path : null },
      files_verified: filesVerified,
    };
    if (options.dryRun === true) return finish('success', null, { plan });
    try {
      const response = await runHttpRequest(request);
      const ok = response.status < 400;
      return finish(
        ok ? 'success' : 'error',
        response,
        ok ? {} : { error: failure('EXECUTE_TOOL_FAILED', `HTTP ${response.status}`) },
      );
    } catch (error) {
      return finish('error', null, { error: asFailure(error) });
    }
  }

  const request = planSubprocess(config, {
    toolExtension: tool.extension,
    env,
    vars,
    cwd,
    source: tool.itemId,
  });
  const plan: ExecutionPlan = {
    primitive: primitive.itemId,
    argv: [request.command, ...request.args],
    url: null,
    cwd: request.cwd,
    env_keys: envKeys,
    timeout_ms: request.timeoutMs,
    anchor: { applied, path: applied ? vars.anchor_path : null },
    files_verified: filesVerified,
  };
  if (options.dryRun === true) return finish('success', null, { plan });

  const manifest = await writeVerifiedManifest(verified);
  try {
    const runEnv = {
      ...request.env,
      RYE_VERIFIED_MANIFEST: manifest,
      ...(applied ? { RYE_ANCHOR_PATH: vars.anchor_path } : {}),
    };
    const result = await runSubprocess({ ...request, env: runEnv });
    const outcome = interpretOutput(result);
    if (outcome.success) return finish('success', outcome.data);
    const code: ErrorCode = result.timedOut ? 'EXECUTE_TIMEOUT' : 'EXECUTE_TOOL_FAILED';
    const why = result.timedOut
      ? `timed out after ${request.timeoutMs} ms; its process tree was killed`
      : (outcome.reason ?? 'failed');
    return finish('error', outcome.data, { error: failure(code, `Tool ${toolId} failed: ${why}`) });
  } catch (error) {
    return finish('error', null, { error: asFailure(error) });
  } finally {
    await rm(dirname(manifest), { recursive: true, force: true });
  }
}

function toEntry(e: ChainElement): ChainEntry {
  return {
    item_id: e.itemId,
    space: e.space,
    tool_type: e.toolType,
    executor_id: e.executorId,
    integrity: e.integrity,
  };
}

function failure(
  code: ErrorCode,
  message: string,
  details?: unknown,
): NonNullable<ExecuteResult['error']> {
  return details === undefined ? { code, message } : { code, message, details };
}

function asFailure(error: unknown): NonNullable<ExecuteResult['error']> {
  if (isRyeError(error)) return failure(error.code, error.message, error.details);
  throw error;
}

/**
 * The files verified before the spawn, with the sha256 of their raw bytes, for
 * runtime libraries that load files later (module_loader.py checks every load
 * against it, closing the gap between verification and use).
 */
async function writeVerifiedManifest(reports: readonly DepsReport[]): Promise<string> {
  const files: Record<string, string> = {};
  for (const report of reports) for (const f of report.files) files[f.absolutePath] = f.rawSha256;
  const dir = join(tmpdir(), `rye-run-${randomBytes(8).toString('hex')}`);
  await mkdir(dir, { mode: 0o700 });
  const path = join(dir, 'verified.json');
  await writeFile(path, JSON.stringify({ files }), { mode: 0o600 });
  return path;
}
