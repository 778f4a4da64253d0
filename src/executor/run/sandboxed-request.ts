/**
 * A subprocess request turned into the same request run inside a bubblewrap
 * sandbox built from the tool's effective permissions (CONTAINMENT.md §1):
 * bwrap is the program, the tool's command runs inside, and the environment
 * is built from nothing.
 */
import { existsSync } from 'node:fs';
import { basename, dirname, join, sep } from 'node:path';
import { RyeError } from '../../errors/index.js';
import { parsePermissions, type ToolPermissions } from '../../items/index.js';
import { packageRoot } from '../../platform/index.js';
import {
  findBwrap,
  hostSystemMounts,
  limitPrefix,
  makePidsGroup,
  newDaemonId,
  projectMounts,
  sandboxArgv,
  sandboxEnv,
  sandboxProgram,
  withoutSecrets,
  type EffectivePermissions,
  type HiddenPaths,
  type PidsGroup,
  type SandboxMode,
  type SandboxMount,
  type SandboxPlan,
} from '../sandbox/index.js';
import type { ChainElement, SubprocessRequest } from '../types.js';

/** The sandbox's own home folder: a fresh tmpfs, nothing of the operator's. */
export const SANDBOX_HOME = '/tmp/home';

/**
 * The tool's declared permissions, checked (a tool signed elsewhere may carry
 * what `rye sign` refuses).
 *
 * @throws RyeError PERMISSIONS_INVALID with every issue.
 */
export function declaredPermissions(tool: ChainElement): ToolPermissions {
  const { permissions, issues } = parsePermissions(tool.permissions);
  if (issues.length === 0) return permissions;
  throw new RyeError(
    'PERMISSIONS_INVALID',
    `Cannot run ${tool.itemId}: its permissions are invalid: ${issues.map((i) => `${i.field}: ${i.message}`).join('; ')}`,
    { item_id: tool.itemId, issues },
  );
}

/**
 * Everything about a tool's sandbox that is known before its request is
 * rendered, built once per run: the operator's mode, the effective
 * permissions, and where things are.
 */
export interface ToolSandbox {
  readonly mode: SandboxMode;
  readonly permissions: EffectivePermissions;
  readonly projectPath: string;
  /** What a project view never shows: the user space, the home's dot-folders, the run cache. */
  readonly hidden: HiddenPaths;
  /** The caller's environment (permitted names, locale, RYE_BWRAP, the interpreter probe's). */
  readonly caller: Readonly<Record<string, string | undefined>>;
  /** The run cache: snapshots, and the interpreter probe's answers. */
  readonly cacheDir: string;
  /** The verified snapshot the tool runs from, bound read-only. */
  readonly snapshot: string | null;
}

/** The rendered subprocess request and the names signed configuration set in its env. */
export interface ToolProcess {
  readonly request: SubprocessRequest;
  readonly signedEnvNames: readonly string[];
}

export interface SandboxedRequest {
  readonly request: SubprocessRequest;
  readonly plan: SandboxPlan;
  readonly bwrap: string;
  /** The pids cgroup the sandbox runs in (root only), removed after the run. */
  readonly pids: PidsGroup | null;
  /** A daemon's sandbox id (its RYE_SANDBOX_ID), under which rye records it if it outlives the call. */
  readonly daemonId: string | null;
}

/** The descriptor bwrap reports a daemon sandbox's init pid on (fd 3 is the channel's). */
export const DAEMON_INFO_FD = 4;

/**
 * How long a daemon's call keeps reading after the tool exits: its sandbox's
 * init holds stdout and stderr open for as long as it lives.
 */
const DAEMON_DRAIN_MS = 50;

/**
 * The request to spawn for a tool process: inside bwrap when the sandbox is
 * on, else as it is, as the user, with rye's variables added and every
 * secret taken out either way.
 */
export function processRequest(
  box: ToolSandbox,
  tool: ToolProcess,
  run: { readonly manifest: string; readonly ryeEnv: Readonly<Record<string, string>> },
): Pick<SandboxedRequest, 'request' | 'pids' | 'daemonId'> {
  if (box.mode === 'bwrap') return sandboxRequest(box, tool, run);
  const env = withoutSecrets({ ...tool.request.env, ...run.ryeEnv, RYE_SANDBOX: 'off' });
  return { request: { ...tool.request, env }, pids: null, daemonId: null };
}

/**
 * Build the sandboxed request. Checks every permission path against the
 * disk (SANDBOX_PATH_REFUSED) and finds bwrap (SANDBOX_UNAVAILABLE) before
 * anything is spawned. A dry run (`run` null) creates nothing: no folder, no
 * cgroup.
 */
export function sandboxRequest(
  box: ToolSandbox,
  tool: ToolProcess,
  run: { readonly manifest: string; readonly ryeEnv: Readonly<Record<string, string>> } | null,
): SandboxedRequest {
  const { request } = tool;
  const { permissions } = box;
  const dryRun = run === null;
  const bwrap = findBwrap(box.caller);
  const program = sandboxProgram(request.command, box.caller, box.cacheDir, {
    ...box.hidden,
    project: box.projectPath,
  });
  const system = hostSystemMounts();
  const wanted = [
    ...new Set([
      ...program.mounts,
      ...packageMounts(),
      ...(box.snapshot === null ? [] : [box.snapshot]),
      ...(run === null ? [] : [run.manifest]),
    ]),
  ];
  // A path inside another one already bound (or inside the system view) adds nothing.
  const readOnly = wanted.filter(
    (path) =>
      !underSystem(path, system) && !wanted.some((o) => o !== path && path.startsWith(o + sep)),
  );
  const project = projectMounts(box.projectPath, permissions, box.hidden, !dryRun);
  const verified = [...system.map((m) => m.target), ...readOnly];
  const visible = [
    ...verified,
    ...project.filter((m) => m.kind === 'ro' || m.kind === 'rw').map((m) => m.target),
  ];
  const cwdMount: SandboxMount[] = within(request.cwd, visible)
    ? []
    : [{ kind: 'dir', target: request.cwd }];
  const limits = limitPrefix(permissions.maxFileMb) ?? [];
  const plan: SandboxPlan = {
    system,
    readOnly,
    project: [...cwdMount, ...project],
    home: SANDBOX_HOME,
    cwd: request.cwd,
    network: permissions.network,
    daemon: permissions.daemon,
    ...(permissions.daemon ? { infoFd: DAEMON_INFO_FD } : {}),
    command: [...limits, program.binary, ...request.args],
  };
  const daemonId = permissions.daemon && !dryRun ? newDaemonId() : null;
  const resolved = Object.fromEntries(
    Object.entries(request.env).map(([k, v]) => [k, v === request.command ? program.binary : v]),
  );
  const env = sandboxEnv({
    resolved,
    signedNames: tool.signedEnvNames,
    permitted: permissions.env,
    caller: box.caller,
    // PATH: folders of verified or system content only, never the project's.
    visible: verified,
    programDir: dirname(program.binary),
    home: SANDBOX_HOME,
    rye: {
      ...(run?.ryeEnv ?? {}),
      RYE_SANDBOX: 'bwrap',
      ...(daemonId === null ? {} : { RYE_SANDBOX_ID: daemonId }),
    },
  });
  const pids = dryRun ? null : makePidsGroup();
  const argv = sandboxArgv(plan);
  return {
    request: {
      ...request,
      command: pids === null ? bwrap : (pids.enter[0] as string),
      args: pids === null ? argv : [...pids.enter.slice(1), bwrap, ...argv],
      env,
      cwd: '/',
      ...(daemonId === null ? {} : { infoFd: DAEMON_INFO_FD, exitDrainMs: DAEMON_DRAIN_MS }),
    },
    plan,
    bwrap,
    pids,
    daemonId,
  };
}

/**
 * What a sandbox needs of rye's own package: its built library (`@rye/core`,
 * the TypeScript loader's registration), its dependencies and its CLI
 * entry. Not the whole folder: a checkout of rye holds a `.git`, tests,
 * perhaps a `.ai/` of its own.
 */
function packageMounts(): string[] {
  const root = packageRoot();
  const own = ['bin', 'dist', 'node_modules', 'package.json'].map((name) => join(root, name));
  // Installed as a dependency, rye's own dependencies may be hoisted beside it.
  const parent = dirname(root);
  return [...own, ...(basename(parent) === 'node_modules' ? [parent] : [])].filter((path) =>
    existsSync(path),
  );
}

function within(path: string, folders: readonly string[]): boolean {
  return folders.some((v) => path === v || path.startsWith(v.endsWith(sep) ? v : v + sep));
}

function underSystem(path: string, system: readonly SandboxMount[]): boolean {
  return system.some(
    (m) => m.kind === 'ro' && (path === m.target || path.startsWith(m.target + sep)),
  );
}
