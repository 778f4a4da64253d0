import { join } from 'node:path';
import { RyeError, isRyeError } from '../errors/index.js';
import type { TrustSet } from '../integrity/index.js';
import { loadSpaceTrust, parseItemId, type Spaces } from '../items/index.js';
import {
  effectivePermissions,
  readSandboxMode,
  type SandboxGrants,
  type SandboxMode,
} from './sandbox/index.js';
import type { ChannelHandler } from './run/channel.js';
import { declaredPermissions, sandboxRequest, type ToolSandbox } from './run/sandboxed-request.js';
import { monotonicMs } from '../platform/index.js';
import { findAnchorConfig } from './chain/anchor.js';
import { buildLockfile, saveLockfile } from '../lockfile/index.js';
import { prepareToPin } from './lock-ports.js';
import { prepareRun } from './prepare.js';
import { PRIMITIVES } from './run/primitive-config.js';
import { loadDotenvTrust } from './env/project-dotenv.js';
import { cacheDirOf, materializeSnapshot } from './snapshot/snapshot.js';
import { planSnapshot } from './snapshot/snapshot-plan.js';
import { runInProcess, type InProcessTool } from './run/in-process.js';
import type { ToolFailure } from './run/outcome.js';
import { runPrimitive } from './run/run-primitive.js';
import { planRun, type ExecutionPlan } from './run-plan.js';
import type { ChainElement } from './types.js';
import { VerifiedFileCache } from './deps/verify-deps.js';

export type { ExecutionPlan } from './run-plan.js';

export interface ExecuteOptions {
  readonly spaces: Spaces;
  readonly toolId: string;
  readonly params?: unknown;
  /** Build, verify and plan, but spawn nothing (and write no lockfile). */
  readonly dryRun?: boolean;
  /**
   * Frozen mode: a missing lockfile or any mismatch fails and no lockfile is
   * ever written (CI, production agents). Default: `RYE_FROZEN=1` in the env.
   */
  readonly frozen?: boolean;
  /** Base environment (default process.env). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Trust set (default: the three spaces' trust stores). */
  readonly trust?: TrustSet;
  /** Verdict cache shared across executions (default: a process-wide cache). */
  readonly cache?: VerifiedFileCache;
  /**
   * Called with the verified chain's ids (the tool first, the primitive last)
   * once the chain is built and verified and before anything is planned or
   * spawned; throwing refuses the run. The capability check of a thread's
   * chain grants (THREADS.md §3) runs here.
   */
  readonly authorizeChain?: (chainIds: readonly string[]) => void;
  /**
   * Cancels the run: before the spawn nothing starts (EXECUTE_CANCELLED is
   * thrown); during it the tool's process group gets SIGTERM, then SIGKILL
   * after the grace, and the result is an error with EXECUTE_CANCELLED.
   */
  readonly signal?: AbortSignal;
  /**
   * Where the run reads the time `metadata.duration_ms` reports, in
   * milliseconds (default: a monotonic clock). A thread run with an injected
   * clock passes it, so a rerun reports the same result (THREADS.md §15).
   */
  readonly clock?: { now(): number };
  /**
   * The sandbox a subprocess tool runs in (CONTAINMENT.md). `mode` is the
   * operator's choice alone (`--no-sandbox`, or `sandbox: off` in the user
   * config, which is read when `mode` is absent); `grants` narrow the tool's
   * signed permissions (a directive's `<sandbox>`), never widen them;
   * `channel` answers the tool's operation-channel requests on fd 3 (opened
   * only when the tool declares `rye:` permissions and a handler is given).
   */
  readonly sandbox?: {
    readonly mode?: SandboxMode;
    readonly grants?: SandboxGrants;
    readonly channel?: ChannelHandler;
  };
  /**
   * System tools rye runs in its own process once they verified like any
   * tool (CONTAINMENT.md §1.8): the bundler and the registry client, which
   * sign with the user's key, which no tool process ever holds. Keyed by tool
   * id; honoured only for a tool that resolved from the system space.
   */
  readonly inProcess?: Readonly<Record<string, InProcessTool>>;
}

/** One chain element as reported (and as a lockfile pins it). */
export interface ChainEntry {
  readonly item_id: string;
  readonly space: string;
  readonly tool_type: string | null;
  readonly executor_id: string | null;
  readonly integrity: string;
}

export interface ExecuteResult {
  readonly status: 'success' | 'error';
  readonly item_id: string;
  readonly data: unknown;
  readonly error?: ToolFailure;
  readonly chain: readonly ChainEntry[];
  readonly plan?: ExecutionPlan;
  readonly metadata: {
    readonly duration_ms: number;
    readonly lockfile_used: boolean;
    readonly lockfile_created: boolean;
    /** Where the lockfile used or written lives, when there is one. */
    readonly lockfile_path?: string;
    /** Why a lockfile could not be written after a successful run. */
    readonly lockfile_error?: string;
    /** What the project `.env` contributed (see ExecutionPlan.dotenv). */
    readonly dotenv: string;
    /** Which sandbox the tool ran in: `bwrap`, `off` (the operator's choice), `none` (an HTTP tool, in process). */
    readonly sandbox: 'bwrap' | 'off' | 'none';
    /** The daemon sandbox the call left running (`rye sandbox list`, `rye sandbox stop <id>`). */
    readonly daemon_sandbox?: string;
  };
}

const defaultCache = new VerifiedFileCache();

/**
 * Execute a tool through its verified chain (ARCHITECTURE.md, the twelve
 * steps): check the lockfile, build and verify the chain, apply the anchor,
 * verify every dependency file, resolve the environment, validate params,
 * render the primitive's config, run it, and pin the chain in a new lockfile.
 * Nothing is spawned unless every check passed.
 *
 * Refusals before the spawn are thrown (integrity and lockfile codes, chain and
 * config errors, PARAMS_INVALID). Failures of the run itself (non-zero exit,
 * `"success": false`, timeout, command not found, HTTP failure) come back as a
 * result with `status: "error"`.
 */
export async function execute(options: ExecuteOptions): Promise<ExecuteResult> {
  const { clock } = options;
  const now = clock === undefined ? monotonicMs : () => clock.now();
  const started = now();
  const { spaces, toolId } = options;
  parseItemId(toolId);
  // RYE_CACHE_DIR: where verified snapshots live (the caller's value wins).
  const callerEnv = options.env ?? process.env;
  const baseEnv: Readonly<Record<string, string | undefined>> = {
    ...callerEnv,
    RYE_CACHE_DIR: cacheDirOf(spaces.user, callerEnv),
  };
  const frozen = options.frozen ?? baseEnv['RYE_FROZEN'] === '1';
  const trust = options.trust ?? (await loadSpaceTrust(spaces)).trust;
  const cache = options.cache ?? defaultCache;

  // 1–6. Lockfile, chain, anchor, dependencies: everything checked before a spawn.
  const { lock, chain, anchor, vars, deps, bundleFiles, bundleRoots } = await prepareRun(
    spaces,
    toolId,
    {
      trust,
      cache,
      lock: { mode: 'find', frozen },
    },
  );
  options.authorizeChain?.(chain.map((element) => element.itemId));
  const applied = anchor !== null;
  const tool = chain[0] as ChainElement;
  const permissions = effectivePermissions(declaredPermissions(tool), options.sandbox?.grants);
  const inProcess = tool.space === 'system' ? options.inProcess?.[toolId] : undefined;
  const isSubprocess =
    inProcess === undefined && (chain.at(-1) as ChainElement).itemId === PRIMITIVES.subprocess;
  const mode: SandboxMode = options.sandbox?.mode ?? readSandboxMode(spaces.user);
  const cacheDir = baseEnv['RYE_CACHE_DIR'] as string;

  // A subprocess runs from the verified snapshot: the template variables point
  // into it, and RYE_RUNTIME_LIB (which no caller or .env can set) names its
  // copy of the runtime library for runtimes' env values.
  const snapshot = isSubprocess
    ? planSnapshot({
        cacheDir,
        chain,
        deps,
        vars,
        anchorApplied: applied,
        libPackage: findAnchorConfig(chain)?.libPackage ?? null,
      })
    : null;
  const box: ToolSandbox = {
    mode,
    permissions,
    projectPath: spaces.project,
    hidden: { userAi: join(spaces.user, '.ai'), home: callerEnv['HOME'], cache: cacheDir },
    caller: callerEnv,
    cacheDir,
    snapshot: snapshot?.layout.dir ?? null,
  };
  const runVars = snapshot?.vars ?? vars;

  // 7–10. Environment, anchor paths and cwd, params, the primitive's request.
  const { plan, run, params } = await planRun({
    spaces,
    chain,
    anchor,
    vars: runVars,
    baseEnv:
      snapshot === null ? baseEnv : { ...baseEnv, RYE_RUNTIME_LIB: snapshot.vars.runtime_lib },
    dotenvTrust: options.trust ?? (() => loadDotenvTrust(spaces)),
    params: options.params,
    // The tool's own file is a chain element and, walked with its folder, a dependency too.
    filesVerified: [
      ...new Set([...chain.map((e) => e.path), ...deps.files.map((f) => f.absolutePath)]),
    ],
    fastPath: deps.fastPath,
    snapshot: snapshot?.layout.dir ?? null,
    filesLeftOut: deps.leftOut,
    sandbox: isSubprocess ? { mode, permissions } : null,
  });
  const chainEntries = chain.map(toEntry);
  let lockMetadata: Pick<
    ExecuteResult['metadata'],
    'lockfile_created' | 'lockfile_path' | 'lockfile_error'
  > =
    lock === null
      ? { lockfile_created: false }
      : { lockfile_created: false, lockfile_path: lock.found.path };
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
      duration_ms: Math.round((now() - started) * 10) / 10,
      lockfile_used: lock !== null,
      dotenv: plan.dotenv,
      sandbox: isSubprocess ? mode : 'none',
      ...lockMetadata,
    },
  });
  if (options.dryRun === true) {
    if (run.kind !== 'subprocess' || plan.sandbox === null || mode !== 'bwrap')
      return finish('success', null, { plan });
    // The bwrap command line the run would use (the manifest's name is made per run).
    const { bwrap, request } = sandboxRequest(box, run, null);
    return finish('success', null, {
      plan: { ...plan, sandbox: { ...plan.sandbox, argv: [bwrap, ...request.args] } },
    });
  }
  if (options.signal?.aborted === true)
    throw new RyeError('EXECUTE_CANCELLED', `Not running ${toolId}: the call was cancelled`, {
      item_id: toolId,
    });

  // 11. Run; 12. pin the chain after a first successful run.
  if (inProcess !== undefined) {
    const outcome = await runInProcess(inProcess, {
      spaces,
      params,
      env: callerEnv,
      prepareToPin,
      toolId,
    });
    if (outcome.status === 'success' && lock === null && !frozen)
      lockMetadata = await pin(spaces, chain, deps.pins);
    return finish(
      outcome.status,
      outcome.data,
      outcome.error === undefined ? {} : { error: outcome.error },
    );
  }
  const snapshotFiles =
    snapshot === null ? [] : [...materializeSnapshot(snapshot.layout, snapshot.sources)];
  const outcome = await runPrimitive(run, {
    files: [
      ...bundleFiles,
      ...snapshotFiles.map(([absolutePath, rawSha256]) => ({ absolutePath, rawSha256 })),
    ],
    roots: bundleRoots,
    anchorPath: applied ? runVars.anchor_path : null,
    toolId,
    signal: options.signal,
    sandbox: box,
    runtimeLib: snapshot?.vars.runtime_lib ?? null,
    channel: options.sandbox?.channel,
    userSpace: spaces.user,
  });
  if (outcome.status === 'success' && lock === null && !frozen)
    lockMetadata = await pin(spaces, chain, deps.pins);
  const result = finish(
    outcome.status,
    outcome.data,
    outcome.error === undefined ? {} : { error: outcome.error },
  );
  if (outcome.daemon === undefined) return result;
  return { ...result, metadata: { ...result.metadata, daemon_sandbox: outcome.daemon } };
}

async function pin(
  spaces: Spaces,
  chain: readonly ChainElement[],
  deps: Parameters<typeof buildLockfile>[2],
): Promise<
  Pick<ExecuteResult['metadata'], 'lockfile_created' | 'lockfile_path' | 'lockfile_error'>
> {
  const root = chain[0] as ChainElement;
  try {
    const { path, unchanged } = await saveLockfile(
      spaces,
      root,
      buildLockfile(chain, spaces[root.space], deps, new Date()),
    );
    return { lockfile_created: !unchanged, lockfile_path: path };
  } catch (error) {
    if (!isRyeError(error)) throw error;
    return { lockfile_created: false, lockfile_error: error.message };
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
