import type { TrustSet } from '../integrity/index.js';
import { loadSpaceTrust, resolveSpaces, type Spaces } from '../items/index.js';
import { openCatalogDb, type CatalogDb } from './index-db.js';
import { searchIndexPath } from './index-path.js';
import type { RefreshStats } from './refresh.js';
import { syncIndex, type Recheck } from './sync.js';
import { trustDigest } from './trust-digest.js';
import type { CatalogScope } from './types.js';

/** A fresh index of the three spaces and the trust its verdicts are computed under. */
export interface Catalog {
  readonly spaces: Spaces;
  readonly handle: CatalogDb;
  readonly trust: TrustSet;
  readonly digest: string;
  readonly refresh: RefreshStats;
}

/** The three spaces of a scope (project relative to `cwd`; env for the user and system spaces). */
export function spacesOf(scope: CatalogScope): Spaces {
  return resolveSpaces({
    project: scope.project,
    env: scope.env ?? process.env,
    cwd: scope.cwd ?? process.cwd(),
  });
}

/** The trust set to verify with (the caller's, or loaded as the executor loads it) and its digest. */
export async function trustOf(
  scope: CatalogScope,
  spaces: Spaces,
): Promise<{ trust: TrustSet; digest: string }> {
  if (scope.trust !== undefined) return { trust: scope.trust, digest: trustDigest(scope.trust) };
  const loaded = await loadSpaceTrust(spaces);
  return { trust: loaded.trust, digest: trustDigest(loaded.trust, loaded.pending) };
}

/**
 * Open the scope's index and bring it up to date with the folders on disk
 * (and every file, as `recheck` says: see {@link Recheck}), changes re-read
 * in one transaction, loading the trust stores meanwhile. Rows about to be
 * served are the caller's to check (`refreshServed`).
 *
 * @throws RyeError SEARCH_INDEX_FAILED, TRUST_* / FILE_* from loading the trust stores
 */
export async function openCatalog(
  scope: CatalogScope,
  recheck: Recheck = 'auto',
): Promise<Catalog> {
  const spaces = spacesOf(scope);
  // Trust files are read on the thread pool while the walk below runs.
  const trusted = trustOf(scope, spaces);
  // A failure here must not leave the trust load's rejection unhandled.
  trusted.catch(() => undefined);
  const handle = openCatalogDb(searchIndexPath(spaces, scope.env ?? process.env));
  const refresh = await syncIndex(handle, spaces, recheck);
  const { trust, digest } = await trusted;
  return { spaces, handle, trust, digest, refresh };
}
