/**
 * The project view of a sandbox, from the effective permissions: the paths
 * they name resolved on disk and checked before anything is bound
 * (CONTAINMENT.md §1.5). A path that leads out of the project through a
 * symlink, or into what no sandbox sees, is refused; a write folder that does
 * not exist yet is created empty.
 */
import { lstatSync, mkdirSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { RyeError } from '../../errors/index.js';
import { NEVER_VISIBLE, normalPermissionPath, type ToolPermissions } from '../../items/index.js';
import type { SandboxMount } from './argv.js';

/** Paths outside the project that must stay hidden even when the project holds them. */
export interface HiddenPaths {
  /** The user space's `.ai` (keys, trust, tokens, config, cache). */
  readonly userAi: string;
  /** The operator's home folder. */
  readonly home: string | undefined;
  /** The run cache (snapshots, the interpreter probe's answers): read-only extras show what a run needs. */
  readonly cache?: string;
}

/**
 * What a project view shows of a `.ai/` that is also the user space's (rye
 * run with the home folder as its project): the item folders, nothing of the
 * user's own (config, cache, registry logins, approvals).
 */
const PROJECT_AI_FOLDERS = ['directives', 'tools', 'knowledge', 'plans', 'lockfiles', 'bundles'];

/**
 * The mounts of the project view, in order: the read entries read-only (the
 * project's `.ai/` masked unless an entry names it), the `!` masks, the write
 * entries read-write (a missing folder is created, unless `create` is
 * false: a dry run), then masks over `.ai/threads`, `.ai/keys`,
 * `.ai/trusted_keys`, the user space and the home folder wherever the view
 * would show them.
 *
 * @throws RyeError SANDBOX_PATH_REFUSED for a path through a symlink, one
 *   that resolves outside the project, or one no sandbox may see.
 */
export function projectMounts(
  project: string,
  permissions: Pick<ToolPermissions, 'read' | 'write'>,
  hidden: HiddenPaths,
  create = true,
): SandboxMount[] {
  const root = realpathSync(project);
  const mounts: SandboxMount[] = [];
  const reads = permissions.read.filter((e) => !e.startsWith('!')).map(normalPermissionPath);
  const masks = permissions.read.filter((e) => e.startsWith('!')).map(normalPermissionPath);
  const writes = permissions.write.filter((e) => !e.startsWith('!')).map(normalPermissionPath);
  const namesAi = (path: string): boolean => path === '.ai' || path.startsWith('.ai/');
  const aiDir = join(root, '.ai');
  // When the project's `.ai` is the user space's too, only its item folders show,
  // and `.ai` itself is never writable (a tool could create the user's config.yaml).
  const userAiIsProjectAi = realOrSelf(hidden.userAi) === aiDir;
  if (userAiIsProjectAi && writes.includes('.ai'))
    throw refused(
      '.ai',
      'write',
      "names the user space's .ai (the project is the user space): name item folders, e.g. .ai/plans/**",
    );

  const bind = (rel: string, what: 'read' | 'write'): void => {
    if (what === 'read') {
      const at = checked(root, rel, 'read');
      if (at !== null) mounts.push({ kind: 'ro', source: at, target: at });
      return;
    }
    // A dry run creates nothing: the folder it would create is shown as it will be bound.
    const at = checked(root, rel, 'write') ?? (create ? createFolder(root, rel) : join(root, rel));
    mounts.push({ kind: 'rw', source: at, target: at });
  };
  // Outside `.ai/` first, reads then writes; then `.ai/` masked wherever a
  // wider entry shows it (unless an entry names `.ai` itself), then the `.ai/`
  // entries, then the `!` masks: a later mount covers an earlier one.
  for (const rel of reads.filter((r) => !namesAi(r))) bind(rel, 'read');
  for (const rel of writes.filter((r) => !namesAi(r))) bind(rel, 'write');
  const wide = [...reads, ...writes].some((r) => !namesAi(r));
  if (wide && exists(aiDir) && !reads.includes('.ai') && !writes.includes('.ai'))
    mounts.push({ kind: 'tmpfs', target: aiDir });
  for (const rel of reads.filter(namesAi)) bind(rel, 'read');
  for (const rel of writes.filter(namesAi)) bind(rel, 'write');
  for (const rel of masks) {
    const at = checked(root, rel, 'read');
    if (at !== null) mounts.push(maskOf(at));
  }
  // The mount a path ends up under: the last one over it (a later mount hides
  // what an earlier one showed beneath it, as bwrap applies them in order).
  const coverOf = (path: string): SandboxMount | undefined =>
    mounts.findLast((m) => path === m.target || path.startsWith(m.target + sep));
  const writable = (path: string): boolean => coverOf(path)?.kind === 'rw';
  const shown = (path: string): boolean => {
    const kind = coverOf(path)?.kind;
    return kind === 'ro' || kind === 'rw';
  };
  const never = [
    ...NEVER_VISIBLE.map((r) => join(root, r)),
    ...(userAiIsProjectAi ? userOnlyEntries(aiDir) : [hidden.userAi]),
    ...(hidden.cache === undefined ? [] : [hidden.cache]),
    ...homeDotEntries(hidden.home, root),
  ].filter((path) => path !== aiDir);
  for (const path of never) {
    if (!shown(path)) continue;
    // A never-visible folder under a writable view is made (empty) so it can be masked:
    // else the tool could create .ai/keys or .ai/threads on the host.
    if (
      !exists(path) &&
      create &&
      NEVER_VISIBLE.some((r) => join(root, r) === path) &&
      writable(path)
    )
      mkdirSync(path, { recursive: true, mode: 0o700 });
    if (exists(path)) mounts.push(maskOf(path));
  }
  // The same mount twice (a `!.ai` mask and the automatic one) is applied once.
  return mounts.filter(
    (m, i) => mounts.findIndex((o) => o.kind === m.kind && o.target === m.target) === i,
  );
}

/**
 * The real path of `rel` under the project, or null when it does not exist.
 * Every component is checked with lstat: a symlink anywhere on the way is
 * refused, so what is bound is what the permission names.
 */
function checked(root: string, rel: string, what: 'read' | 'write'): string | null {
  if (rel === '.') return root;
  let at = root;
  for (const part of rel.split('/')) {
    at = join(at, part);
    let stat;
    try {
      stat = lstatSync(at);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw refused(rel, what, `cannot be read (${(error as Error).message})`);
    }
    if (stat.isSymbolicLink())
      throw refused(
        rel,
        what,
        `goes through the symlink ${relative(root, at)}: a sandbox binds only real folders and files of the project`,
      );
  }
  return at;
}

/** A write folder that does not exist yet: created (its parents too) inside the project. */
function createFolder(root: string, rel: string): string {
  const at = join(root, rel);
  mkdirSync(at, { recursive: true, mode: 0o755 });
  // A symlink planted between the check and the mkdir would show here.
  if (realpathSync(at) !== at) throw refused(rel, 'write', 'changed while it was created');
  return at;
}

function maskOf(path: string): SandboxMount {
  return statSync(path).isDirectory()
    ? { kind: 'tmpfs', target: path }
    : { kind: 'ro', source: '/dev/null', target: path };
}

/**
 * When the project is the home folder or holds it, the home's dot-entries
 * (`.ssh`, `.gnupg`, `.config`, …) are masked: a project view never shows them.
 */
function homeDotEntries(home: string | undefined, root: string): string[] {
  if (home === undefined || home === '') return [];
  let real: string;
  try {
    real = realpathSync(home);
  } catch {
    return [];
  }
  if (real !== root && !real.startsWith(root + sep)) return [];
  try {
    return readdirSync(real)
      .filter((name) => name.startsWith('.'))
      .map((name) => join(real, name));
  } catch {
    return [];
  }
}

/** The entries of a user space's `.ai/` that are not item folders. */
function userOnlyEntries(aiDir: string): string[] {
  try {
    return readdirSync(aiDir)
      .filter((name) => !PROJECT_AI_FOLDERS.includes(name))
      .map((name) => join(aiDir, name));
  } catch {
    return [];
  }
}

/** The real path of `path`, or `path` itself when it cannot be resolved. */
export function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

function refused(rel: string, what: string, why: string): RyeError {
  return new RyeError(
    'SANDBOX_PATH_REFUSED',
    `Cannot build the sandbox: the ${what} permission ${JSON.stringify(rel)} ${why}; nothing ran`,
    { path: rel, permission: what },
  );
}
