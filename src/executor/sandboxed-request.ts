/**
 * A subprocess request turned into the same request run inside a bubblewrap
 * sandbox built from the tool's effective permissions (CONTAINMENT.md §1):
 * bwrap is the program, the tool's command runs inside, and the environment
 * is built from nothing.
 */
import { dirname, sep } from 'node:path';
import { RyeError } from '../errors/index.js';
import { parsePermissions, type ToolPermissions } from '../items/index.js';
import { packageRoot } from '../platform/index.js';
import {
  findBwrap,
  hostSystemMounts,
  limitPrefix,
  makePidsGroup,
  projectMounts,
  sandboxArgv,
  sandboxEnv,
  sandboxProgram,
  type EffectivePermissions,
  type HiddenPaths,
  type PidsGroup,
  type SandboxMount,
  type SandboxPlan,
} from '../sandbox/index.js';
import type { ChainElement, SubprocessRequest } from './types.js';

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

export interface SandboxInput {
  readonly request: SubprocessRequest;
  readonly signedEnvNames: readonly string[];
  readonly permissions: EffectivePermissions;
  readonly projectPath: string;
  readonly hidden: HiddenPaths;
  /** The caller's environment (permitted names, locale, RYE_BWRAP). */
  readonly caller: Readonly<Record<string, string | undefined>>;
  /** Where the interpreter probe is cached. */
  readonly cacheDir: string;
  /** Read-only extras: the snapshot, the verified manifest. */
  readonly readOnly: readonly string[];
  /** rye's variables for the runtime libraries. */
  readonly ryeEnv: Readonly<Record<string, string>>;
}

export interface SandboxedRequest {
  readonly request: SubprocessRequest;
  readonly plan: SandboxPlan;
  readonly bwrap: string;
  /** The pids cgroup the sandbox runs in (root only), removed after the run. */
  readonly pids: PidsGroup | null;
}

/**
 * Build the sandboxed request. Checks every permission path against the
 * disk (SANDBOX_PATH_REFUSED) and finds bwrap (SANDBOX_UNAVAILABLE) before
 * anything is spawned.
 */
export function sandboxRequest(input: SandboxInput, dryRun = false): SandboxedRequest {
  const { request, permissions } = input;
  const bwrap = findBwrap(input.caller);
  const program = sandboxProgram(request.command, input.caller, input.cacheDir);
  const system = hostSystemMounts();
  const wanted = [
    ...new Set([...program.prefixes, packageRoot(), ...input.readOnly, dirname(program.binary)]),
  ];
  // A folder inside another one already bound (or inside the system view) adds nothing.
  const readOnly = wanted.filter(
    (path) =>
      !underSystem(path, system) && !wanted.some((o) => o !== path && path.startsWith(o + sep)),
  );
  const project = projectMounts(input.projectPath, permissions, input.hidden, !dryRun);
  const visible = [
    ...system.filter((m) => m.kind === 'ro').map((m) => m.target),
    ...system.filter((m) => m.kind === 'symlink').map((m) => m.target),
    ...readOnly,
    ...project.filter((m) => m.kind === 'ro' || m.kind === 'rw').map((m) => m.target),
  ];
  const seen = (dir: string): boolean =>
    visible.some((v) => dir === v || dir.startsWith(v.endsWith(sep) ? v : v + sep));
  const cwdMount: SandboxMount[] = seen(request.cwd) ? [] : [{ kind: 'dir', target: request.cwd }];
  const limits = limitPrefix(permissions.maxFileMb) ?? [];
  const command = [...limits, program.binary, ...request.args];
  const plan: SandboxPlan = {
    system,
    readOnly,
    project: [...cwdMount, ...project],
    home: SANDBOX_HOME,
    cwd: request.cwd,
    network: permissions.network,
    daemon: permissions.daemon,
    command,
  };
  const resolved = Object.fromEntries(
    Object.entries(request.env).map(([k, v]) => [k, v === request.command ? program.binary : v]),
  );
  const env = sandboxEnv({
    resolved,
    signedNames: input.signedEnvNames,
    permitted: permissions.env,
    caller: input.caller,
    visible,
    programDir: dirname(program.binary),
    home: SANDBOX_HOME,
    rye: { ...input.ryeEnv, RYE_SANDBOX: 'bwrap' },
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
    },
    plan,
    bwrap,
    pids,
  };
}

function underSystem(path: string, system: readonly SandboxMount[]): boolean {
  return system.some(
    (m) => m.kind === 'ro' && (path === m.target || path.startsWith(m.target + sep)),
  );
}
