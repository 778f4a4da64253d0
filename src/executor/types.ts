/**
 * Shared shapes of the executor domain. Configs arrive as untrusted YAML or
 * literal values and are parsed into these typed forms (EXECUTOR_CONFIG_INVALID
 * on anything malformed) before any of them is used.
 */
import type { Duplex } from 'node:stream';
import type { SpaceName } from '../items/index.js';

/** Seed 000 `anchor:` section of a runtime YAML. */
export interface AnchorConfig {
  readonly enabled: boolean;
  readonly mode: 'always' | 'auto' | 'never';
  /** Marker file names; in `auto` mode, any of them in the tool's folder activates the anchor. */
  readonly markersAny: readonly string[];
  readonly root: 'tool_dir' | 'tool_parent' | 'project_path';
  /** Runtime library folder relative to the runtime YAML's folder, or null. */
  readonly lib: string | null;
  /**
   * The package name the library is mounted as in a tool's snapshot
   * (`<snapshot>/node_modules/<name>`), so the interpreter's own module
   * resolution finds it from every tool file; null: its own area. Needs `lib`.
   */
  readonly libPackage?: string | null;
  /** Working directory template (e.g. `{anchor_path}`), or null to leave it. */
  readonly cwd: string | null;
  /** Path-like variables: templates to prepend / append, joined with path.delimiter. */
  readonly envPaths: Readonly<
    Record<string, { readonly prepend: readonly string[]; readonly append: readonly string[] }>
  >;
}

/** Seed 000 `verify_deps:` section of a runtime YAML. */
export interface VerifyDepsConfig {
  readonly enabled: boolean;
  readonly scope: 'anchor' | 'tool_dir' | 'tool_siblings' | 'tool_file';
  readonly recursive: boolean;
  /** Extensions with their dot, e.g. `.py`. */
  readonly extensions: readonly string[];
  readonly excludeDirs: readonly string[];
  /**
   * Folders of third-party code (`node_modules`): every file in them, of any
   * extension, is pinned by its raw hash instead of a signature, and runs only
   * once the user pinned it (`rye lock update`). Default none.
   */
  readonly thirdPartyDirs?: readonly string[];
}

/** `env_config.interpreter`: how a runtime finds its interpreter. */
export interface InterpreterConfig {
  /** venv_python | local_binary | node_modules | system */
  readonly type: 'venv_python' | 'local_binary' | 'node_modules' | 'system';
  /** Variable that receives the interpreter path, e.g. RYE_PYTHON. */
  readonly var: string;
  readonly binary: string | null;
  readonly candidates: readonly string[];
  /** Folders (relative to each search root) probed for the binary. */
  readonly searchPaths: readonly string[];
  /** Templates of the roots searched (default: the project path). */
  readonly searchRoots: readonly string[];
  /** For venv_python: the venv folder relative to the project (default `.venv`). */
  readonly venvPath: string;
  /** Used when nothing is found: a bare name is looked up in the absolute PATH folders. */
  readonly fallback: string | null;
}

/** `env_config:` of a tool or runtime. */
export interface EnvConfig {
  readonly interpreter: InterpreterConfig | null;
  /** Values may hold `${VAR}` and `${VAR:-default}`. */
  readonly env: Readonly<Record<string, string>>;
  /** Names a signed project `.env` may supply (never a loader name: see loader-env.ts). */
  readonly dotenv: readonly string[];
}

/** One element of an executor chain (tool → runtime(s) → primitive). */
export interface ChainElement {
  readonly itemId: string;
  readonly space: SpaceName;
  readonly path: string;
  readonly extension: string;
  readonly toolType: string | null;
  readonly executorId: string | null;
  readonly version: string | null;
  /** The element's content hash (what a lockfile pins). */
  readonly integrity: string;
  readonly envConfig: EnvConfig | null;
  /** Primitive configuration (command, args, timeout, …) before rendering. */
  readonly config: Readonly<Record<string, unknown>> | null;
  readonly configSchema: Readonly<Record<string, unknown>> | null;
  readonly anchor: AnchorConfig | null;
  readonly verifyDeps: VerifyDepsConfig | null;
  /**
   * The signed `permissions` value as declared (undefined: none), checked by
   * `parsePermissions` when the element is the tool a run starts from.
   */
  readonly permissions?: unknown;
  /** The bytes that were verified (set by buildChain): what the snapshot holds for this file. */
  readonly raw?: Uint8Array;
}

/** The template variables of seed 000 plus `params_json`. */
export interface TemplateVars {
  readonly tool_path: string;
  readonly tool_dir: string;
  readonly tool_parent: string;
  readonly anchor_path: string;
  readonly runtime_lib: string;
  readonly project_path: string;
  readonly user_space: string;
  readonly system_space: string;
  readonly params_json: string;
  /** Extra runtime-provided values (e.g. `ts_loader`). */
  readonly [name: string]: string;
}

/** What the subprocess primitive runs. */
export interface SubprocessRequest {
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  /** Bytes written to stdin, then stdin is closed; null: stdin is /dev/null. */
  readonly stdin: string | null;
  readonly timeoutMs: number;
  /** Cap per stream; past it, output is dropped and a marker appended. */
  readonly maxOutputBytes: number;
  /** Aborting kills the process group like a timeout does (cancel, not a failure of the tool). */
  readonly signal?: AbortSignal | undefined;
  /**
   * The operation channel (CONTAINMENT.md §1.7): when set, the child gets a
   * socket on fd 3 and this receives rye's end once the child is spawned.
   */
  readonly channel?: ((socket: Duplex) => void) | undefined;
  /**
   * A descriptor of the child's (above 3) made a pipe whose output is kept,
   * up to 64 KiB, as the result's `info`: bwrap's `--info-fd`.
   */
  readonly infoFd?: number | undefined;
  /**
   * How long to keep reading stdout and stderr after the child exits
   * (default 500 ms). A daemon's sandbox holds them open for its life: all
   * the tool wrote is buffered by then.
   */
  readonly exitDrainMs?: number | undefined;
}

export interface SubprocessResult {
  readonly stdout: string;
  readonly stderr: string;
  /** Exit code, or null when killed by a signal. */
  readonly returnCode: number | null;
  readonly signal: string | null;
  readonly timedOut: boolean;
  /** The request's signal aborted the run and the process group was killed. */
  readonly cancelled: boolean;
  readonly stdoutTruncated: boolean;
  readonly stderrTruncated: boolean;
  readonly durationMs: number;
  /** What the child wrote to `infoFd`, when one was asked for. */
  readonly info?: string;
}

/** What the http_client primitive sends. */
export interface HttpRequest {
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH' | 'HEAD';
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  /** JSON body (serialised by the primitive), or null. */
  readonly body: unknown;
  readonly auth:
    | { readonly type: 'bearer'; readonly token: string }
    | { readonly type: 'api_key'; readonly key: string; readonly header: string }
    | null;
  readonly timeoutMs: number;
  /** Aborts the request (cancel); combined with the per-attempt timeout. */
  readonly signal?: AbortSignal | undefined;
  readonly retry: {
    readonly maxAttempts: number;
    readonly backoff: 'exponential' | 'linear';
    readonly baseDelayMs: number;
  };
  readonly maxResponseBytes: number;
}

export interface HttpResult {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  /** Parsed JSON when the response is JSON, else the text. */
  readonly body: unknown;
  readonly attempts: number;
  readonly durationMs: number;
  readonly truncated: boolean;
}
