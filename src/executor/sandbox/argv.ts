/**
 * The bubblewrap command line of one sandbox, from its concrete plan
 * (CONTAINMENT.md §1.5). One pure function, so every mount and namespace
 * decision is unit-tested without spawning anything.
 */

/** One mount, in the order bwrap applies them (a later mount covers an earlier one). */
export type SandboxMount =
  | { readonly kind: 'ro'; readonly source: string; readonly target: string }
  | { readonly kind: 'rw'; readonly source: string; readonly target: string }
  | { readonly kind: 'tmpfs'; readonly target: string }
  | { readonly kind: 'symlink'; readonly source: string; readonly target: string }
  | { readonly kind: 'dir'; readonly target: string };

/** Everything the argv is made of, resolved and checked by the caller. */
export interface SandboxPlan {
  /** The host's system folders and files, read-only (see host.ts). */
  readonly system: readonly SandboxMount[];
  /** Interpreter prefix, rye's package, the snapshot, the verified manifest: read-only. */
  readonly readOnly: readonly string[];
  /** The project view: ro binds, masks, rw binds, in order (see mounts.ts). */
  readonly project: readonly SandboxMount[];
  /** The sandbox's own home folder (a fresh tmpfs under /tmp). */
  readonly home: string;
  readonly cwd: string;
  readonly network: boolean;
  /** True: the sandbox outlives rye (its own session, no --die-with-parent). */
  readonly daemon: boolean;
  /**
   * A daemon's: the descriptor bwrap writes `{"child-pid": N}` to, the host
   * pid of the sandbox's init, which rye records (see daemons.ts).
   */
  readonly infoFd?: number;
  /** The program and its arguments, run inside. */
  readonly command: readonly string[];
}

/**
 * bwrap's arguments (without the bwrap program itself). Namespaces: all
 * unshared (`--share-net` only when the network is granted), a new PID
 * namespace with its own `/proc`, a minimal `/dev`, a new session, and death
 * with rye unless the tool is a declared daemon. Filesystem: an empty root,
 * then the system read-only, fresh tmpfs for `/tmp` and the home folder, the
 * project view, then the read-only extras (over any writable project folder). The environment is not in the
 * argv (values may be secrets, and a command line is world-readable): the
 * caller starts bwrap with the sandbox's environment, built from nothing.
 * Pure.
 */
export function sandboxArgv(plan: SandboxPlan): string[] {
  const argv: string[] = ['--unshare-all'];
  if (plan.network) argv.push('--share-net');
  if (!plan.daemon) argv.push('--die-with-parent');
  if (plan.infoFd !== undefined) argv.push('--info-fd', String(plan.infoFd));
  argv.push('--new-session', '--cap-drop', 'ALL');
  for (const mount of plan.system) argv.push(...mountArgs(mount));
  argv.push('--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp', '--dir', plan.home);
  for (const mount of plan.project) argv.push(...mountArgs(mount));
  // Last, so no writable project folder covers them: a run cache or an
  // interpreter inside the project stays read-only.
  for (const path of plan.readOnly) argv.push('--ro-bind', path, path);
  argv.push('--chdir', plan.cwd, '--', ...plan.command);
  return argv;
}

function mountArgs(mount: SandboxMount): string[] {
  switch (mount.kind) {
    case 'ro':
      return ['--ro-bind', mount.source, mount.target];
    case 'rw':
      return ['--bind', mount.source, mount.target];
    case 'tmpfs':
      return ['--tmpfs', mount.target];
    case 'symlink':
      return ['--symlink', mount.source, mount.target];
    case 'dir':
      return ['--dir', mount.target];
  }
}
