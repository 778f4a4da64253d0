/**
 * The effective sandbox of one tool run (CONTAINMENT.md §1.4): the tool's
 * signed permissions, narrowed by what the caller grants, never widened. Pure.
 */
import { normalPermissionPath, type ToolPermissions } from '../../items/index.js';

/** What a caller (a thread's directive, a ceiling) allows a tool's sandbox at most. */
export interface SandboxGrants {
  /** Project-relative folders (`a/b`, `a/b/**`) writes are narrowed to; absent: no narrowing. */
  readonly write?: readonly string[];
  /** False: no network whatever the tool declares; absent: no narrowing. */
  readonly network?: boolean;
  /** False: no daemon; absent: no narrowing. */
  readonly daemon?: boolean;
}

/** The permissions a run gets, with what was dropped on the way (for --plan and --explain-sandbox). */
export interface EffectivePermissions extends ToolPermissions {
  /** Declared entries the grants took away, e.g. `write:apps/**`, `network`. */
  readonly narrowed: readonly string[];
}

/**
 * Declaration ∩ grants. A write entry survives where it lies inside a granted
 * folder; a granted folder inside a declared one narrows it to the granted
 * one; `network` and `daemon` need both. Reads, masks and env are the
 * declaration's (the caller's own authority bounds the channel, `rye:`,
 * call by call). Pure.
 */
export function effectivePermissions(
  declared: ToolPermissions,
  grants: SandboxGrants | undefined,
): EffectivePermissions {
  if (grants === undefined) return { ...declared, narrowed: [] };
  const narrowed: string[] = [];
  let write = declared.write;
  if (grants.write !== undefined) {
    write = intersectFolders(declared.write, grants.write);
    for (const entry of declared.write)
      if (!write.includes(entry) && !write.some((w) => isInside(w, entry)))
        narrowed.push(`write:${entry}`);
  }
  const network = declared.network && grants.network !== false;
  if (declared.network && !network) narrowed.push('network');
  const daemon = declared.daemon && grants.daemon !== false;
  if (declared.daemon && !daemon) narrowed.push('daemon');
  return { ...declared, write, network, daemon, narrowed };
}

/** Entries of `a` inside a folder of `b`, and folders of `b` inside an entry of `a`. Pure. */
export function intersectFolders(a: readonly string[], b: readonly string[]): string[] {
  const out = new Set<string>();
  for (const x of a) {
    if (x.startsWith('!')) continue;
    for (const y of b) {
      if (y.startsWith('!')) continue;
      if (isInside(x, y)) out.add(x);
      else if (isInside(y, x)) out.add(y);
    }
  }
  return [...out];
}

/** True when permission path `inner` names `outer` or something under it. Pure. */
export function isInside(inner: string, outer: string): boolean {
  const i = normalPermissionPath(inner);
  const o = normalPermissionPath(outer);
  return o === '.' || i === o || i.startsWith(`${o}/`);
}

/**
 * Two bounds met: each narrows, neither widens (a child thread's grants
 * against its parent's). Pure.
 */
export function meetGrants(
  a: SandboxGrants | undefined,
  b: SandboxGrants | undefined,
): SandboxGrants | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  const write =
    a.write === undefined
      ? b.write
      : b.write === undefined
        ? a.write
        : intersectFolders(a.write, b.write);
  const network = a.network === false || b.network === false ? false : (a.network ?? b.network);
  const daemon = a.daemon === false || b.daemon === false ? false : (a.daemon ?? b.daemon);
  return {
    ...(write === undefined ? {} : { write }),
    ...(network === undefined ? {} : { network }),
    ...(daemon === undefined ? {} : { daemon }),
  };
}
