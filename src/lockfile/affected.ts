import { join } from 'node:path';
import type { SpaceName, Spaces } from '../items/index.js';
import { relativeInside } from '../platform/index.js';
import { lockedSpace } from './check.js';
import { listLockfiles } from './store.js';
import type { LockedElement } from './types.js';

/** A lockfile that pins something just re-signed: its next run reports LOCKFILE_STALE. */
export interface AffectedLockfile {
  readonly path: string;
  readonly toolId: string;
  /** The signed item or dependency path it pins. */
  readonly pins: string;
}

/**
 * The lockfiles that pin any of `signed` — as a chain element (same id, same
 * space) or as a dependency file of their pinned scope. Signing marks them
 * stale: they no longer match, and `rye lock update <tool>` re-pins them.
 */
export async function lockfilesAffectedBy(
  spaces: Spaces,
  signed: readonly { readonly itemId: string; readonly space: SpaceName; readonly path: string }[],
): Promise<AffectedLockfile[]> {
  const out: AffectedLockfile[] = [];
  for (const listed of await listLockfiles(spaces)) {
    const lockfile = listed.lockfile;
    if (lockfile === undefined) continue;
    const hit = signed.find((s) =>
      lockfile.resolvedChain.some((e) => e.itemId === s.itemId && lockedSpace(e.space) === s.space),
    );
    if (hit !== undefined) {
      out.push({ path: listed.path, toolId: lockfile.root.toolId, pins: hit.itemId });
      continue;
    }
    const deps = lockfile.verifiedDeps;
    // A parsed chain has 1 to 10 elements.
    const rootSpace = lockedSpace((lockfile.resolvedChain[0] as LockedElement).space);
    if (deps === undefined || rootSpace === null) continue;
    const base = join(spaces[rootSpace], deps.anchorPath);
    const dep = signed
      .map((s) => relativeInside(base, s.path))
      .find((rel) => rel !== undefined && Object.hasOwn(deps.files, rel));
    if (dep !== undefined) out.push({ path: listed.path, toolId: lockfile.root.toolId, pins: dep });
  }
  return out;
}
