import { relative, sep } from 'node:path';
import { RyeError } from '../errors/index.js';
import { verifyText, type TrustSet, type TrustedKey } from '../integrity/index.js';
import type { Spaces } from '../items/index.js';
import { decodeText } from '../platform/index.js';
import {
  checkChainPins,
  compareDeps,
  lockedSpace,
  type LockMismatch,
  type ResolvedElement,
} from './check.js';
import { ownTrust, readOwnKey } from './own-key.js';
import { findNewerOwnLockfile } from './rollback.js';
import { findLockfile, type FoundLockfile } from './store.js';
import type { ChainLink, VerifiedDeps } from './types.js';

/** A lockfile in use for one run, and whether its own signature is trusted. */
export interface LockInUse {
  readonly found: FoundLockfile;
  /**
   * Signed by the user's own key (and that key is in the run's trust set): the
   * verified-deps fast path may skip signature work. A lockfile signed by any
   * other trusted key still pins, but never replaces a signature check.
   */
  readonly trusted: boolean;
}

/**
 * Step 1: refuse a rollback (a lockfile signed by the user's own key pins a
 * newer version of the tool than `version`), then find the tool's lockfile
 * (project → user → system) and compare every pinned chain element with the
 * files today. Frozen mode refuses a missing one. `version` must be the
 * version of the tool as verified, never one read from unverified bytes.
 *
 * @throws RyeError LOCKFILE_ROLLBACK, LOCKFILE_MISSING (frozen), LOCKFILE_MISMATCH,
 *   LOCKFILE_STALE, LOCKFILE_INVALID, LOCKFILE_VERSION_UNSUPPORTED, KEY_INVALID
 *   (an unreadable own public key), FILE_UNREADABLE
 */
export async function checkLockfile(
  spaces: Spaces,
  toolId: string,
  version: string,
  trust: TrustSet,
  frozen: boolean,
  chain: readonly ChainLink[] = [],
): Promise<LockInUse | null> {
  const own = readOwnKey(spaces);
  if (own !== null) await refuseRollback(spaces, toolId, version, own);
  const found = await findLockfile(spaces, toolId, version);
  if (found === null) {
    if (frozen) {
      throw new RyeError(
        'LOCKFILE_MISSING',
        `Cannot run ${toolId} in frozen mode: it has no lockfile (${toolId}@${version}); create one with \`rye lock update ${toolId}\``,
        { toolId, version },
      );
    }
    return null;
  }
  return checkPins(spaces, toolId, found, trust, own, chain);
}

/**
 * Compare a lockfile's pinned chain with the files today, and decide whether
 * its own signature unlocks the verified-deps fast path: only a signature by
 * the user's own key (`own`, read from the user space when not given) that
 * the run's trust set also trusts.
 *
 * @throws RyeError LOCKFILE_MISMATCH, LOCKFILE_STALE, KEY_INVALID
 */
export async function checkPins(
  spaces: Spaces,
  toolId: string,
  found: FoundLockfile,
  trust: TrustSet,
  own: TrustedKey | null = readOwnKey(spaces),
  chain: readonly ChainLink[] = [],
): Promise<LockInUse> {
  const mismatches = await checkChainPins(spaces, found.lockfile, trust, chain.flatMap(resolvedOf));
  if (mismatches.length > 0) throw lockError(toolId, found, mismatches);
  const trusted =
    found.lockfile.signature !== null &&
    verifyText(found.text, {
      itemType: 'tool',
      extension: '.json',
      trust: ownTrust(trust, own),
      path: found.path,
    }).ok;
  return { found, trusted };
}

/** A chain element as the lockfile check takes it: built, read and verified by this run (its bytes kept). */
function resolvedOf(element: ChainLink): ResolvedElement[] {
  const { raw } = element;
  if (raw === undefined) return [];
  return [
    {
      itemId: element.itemId,
      space: element.space,
      path: element.path,
      extension: element.extension,
      integrity: element.integrity,
      text: () => decodeText(raw, element.path),
    },
  ];
}

/**
 * LOCKFILE_ROLLBACK when a lockfile signed by the user's own key pins a newer
 * version of the tool than the one about to run: an older signed release was
 * restored. Applies in frozen and normal mode alike.
 *
 * @throws RyeError LOCKFILE_ROLLBACK, FILE_UNREADABLE
 */
async function refuseRollback(
  spaces: Spaces,
  toolId: string,
  version: string,
  own: TrustedKey,
): Promise<void> {
  const newer = await findNewerOwnLockfile(spaces, toolId, version, own);
  if (newer === null) return;
  const fix =
    newer.space === 'system'
      ? `remove ${newer.path}`
      : `rye lock remove ${toolId} --version ${newer.version}`;
  throw new RyeError(
    'LOCKFILE_ROLLBACK',
    `Cannot run ${toolId}@${version}: lockfile ${newer.path}, signed by your key, pins the newer version ${newer.version} — an older release may have been restored; to run ${version} on purpose, remove that lockfile (\`${fix}\`)`,
    { toolId, version, newerVersion: newer.version, lockfile: newer.path, fix },
  );
}

/** The chain built today must be the chain pinned (same ids, spaces, order). */
export function checkChainShape(
  toolId: string,
  lock: LockInUse,
  chain: readonly ChainLink[],
): void {
  const pinned = lock.found.lockfile.resolvedChain;
  const mismatches: LockMismatch[] = [];
  const length = Math.max(pinned.length, chain.length);
  for (let i = 0; i < length; i += 1) {
    const was = pinned[i];
    const now = chain[i];
    if (
      was !== undefined &&
      now !== undefined &&
      was.itemId === now.itemId &&
      lockedSpace(was.space) === now.space
    )
      continue;
    mismatches.push({
      // One of the two is defined: i is below the longer chain's length.
      subject: (was ?? (now as ChainLink)).itemId,
      kind: 'chain',
      path: now?.path ?? null,
      expected: was === undefined ? null : `${was.itemId} (${was.space})`,
      actual: now === undefined ? null : `${now.itemId} (${now.space})`,
      stale: false,
      detail: `link ${i + 1} of the chain differs from the pinned one`,
    });
  }
  if (mismatches.length > 0) throw lockError(toolId, lock.found, mismatches);
}

/**
 * Compare today's dependency hashes with the pinned ones; also refuses a
 * lockfile that pins no dependencies for a run whose runtime verifies them (a
 * v2 lockfile rewritten as v1 must not quietly drop the pins).
 */
export function checkDeps(
  toolId: string,
  lock: LockInUse,
  current: DepsSnapshot | null,
  base: string,
  signedBy: (relativePath: string) => string | null = () => null,
): void {
  const pinned = lock.found.lockfile.verifiedDeps;
  if (current === null && pinned === undefined) return;
  const refuse = (
    kind: LockMismatch['kind'],
    expected: string | null,
    actual: string | null,
    detail: string,
  ): never => {
    throw lockError(toolId, lock.found, [
      { subject: toolId, kind, path: null, expected, actual, stale: false, detail },
    ]);
  };
  if (current === null) {
    return refuse(
      'anchor',
      // Defined: with no pins either, the run returned above.
      (pinned as VerifiedDeps).anchorPath,
      null,
      'the lockfile pins dependencies but the anchor does not apply now',
    );
  }
  if (pinned === undefined) {
    return refuse(
      'downgrade',
      null,
      relativeToBase(base, current.anchorPath),
      `lockfile version ${lock.found.lockfile.lockfileVersion} pins no dependencies, but this runtime verifies ${current.files.size} of them`,
    );
  }
  const anchorPath = relativeToBase(base, current.anchorPath);
  if (pinned.anchorPath !== anchorPath || pinned.scope !== current.scope) {
    return refuse(
      'anchor',
      `${pinned.anchorPath} (${pinned.scope})`,
      `${anchorPath} (${current.scope})`,
      'the dependency scope moved',
    );
  }
  const mismatches = compareDeps(pinned, current.files).map((m): LockMismatch => {
    if (m.kind !== 'dep-changed' && m.kind !== 'dep-added') return m;
    const by = signedBy(m.subject);
    return by === null ? m : { ...m, stale: true, signedBy: by };
  });
  if (mismatches.length > 0) throw lockError(toolId, lock.found, mismatches);
}

/** The dependency scope of one run: where it is and the raw hash of each file. */
export interface DepsSnapshot {
  /** Absolute anchor path. */
  readonly anchorPath: string;
  readonly scope: VerifiedDeps['scope'];
  /** relative path → raw SHA-256 */
  readonly files: ReadonlyMap<string, string>;
}

/**
 * The error for a set of mismatches: LOCKFILE_STALE when every changed file
 * carries a valid trusted signature, else LOCKFILE_MISMATCH. Worded neutrally:
 * a signature's timestamp is not authenticated, so a stale pin cannot be told
 * from a rollback to an older signed version, and the message claims neither.
 */
export function lockError(
  toolId: string,
  found: FoundLockfile,
  mismatches: readonly LockMismatch[],
): RyeError {
  const first = mismatches[0] as LockMismatch;
  const more = mismatches.length > 1 ? ` (and ${mismatches.length - 1} more)` : '';
  const fix = `rye lock update ${toolId}`;
  if (mismatches.every((m) => m.stale)) {
    const by = first.signedBy === undefined ? 'a trusted key' : `trusted key ${first.signedBy}`;
    return new RyeError(
      'LOCKFILE_STALE',
      `Cannot run ${toolId}: ${first.subject} changed since lockfile ${found.path} pinned it; it is now signed by ${by} (the signature's date is not authenticated: this may be an update or a rollback)${more}; review the change, then run \`${fix}\` to pin it`,
      { toolId, lockfile: found.path, mismatches, fix },
    );
  }
  return new RyeError(
    'LOCKFILE_MISMATCH',
    `Cannot run ${toolId}: lockfile ${found.path} pins ${first.subject} at ${first.expected ?? '(nothing)'} but finds ${first.actual ?? '(nothing)'} — ${first.detail}${more}; review the change, then run \`${fix}\``,
    { toolId, lockfile: found.path, mismatches, fix },
  );
}

/** `path` relative to `base`, `/`-separated (`.` for the base itself): how a lockfile records it. */
export function relativeToBase(base: string, path: string): string {
  const rel = relative(base, path);
  return rel === '' ? '.' : rel.split(sep).join('/');
}
