/**
 * The executor's side of `rye lock update` and `rye lock verify`: the
 * lockfile domain writes and checks lockfiles, and takes the chain and
 * dependency verification it needs (steps 1–6, prepare.ts) as ports, which
 * this file provides.
 */
import type { TrustSet } from '../integrity/index.js';
import type { Spaces } from '../items/index.js';
import {
  updateLockfileWith,
  verifyLockfilesWith,
  type LockStatus,
  type Lockfile,
  type PrepareToPin,
} from '../lockfile/index.js';
import { prepareRun } from './prepare.js';
import { VerifiedFileCache } from './deps/verify-deps.js';

/**
 * The tool's chain and dependencies verified afresh for pinning (no cached
 * verdicts, no old lockfile consulted, third-party files accepted).
 *
 * @throws RyeError every refusal code of the checks.
 */
export const prepareToPin: PrepareToPin = async (spaces, toolId, trust) => {
  const prepared = await prepareRun(spaces, toolId, {
    trust,
    cache: new VerifiedFileCache(),
    lock: { mode: 'ignore' },
    // Pinning is the user's approval of the third-party code it pins.
    acceptThirdParty: true,
  });
  return {
    chain: prepared.chain,
    pins: prepared.deps.pins,
    thirdParty: prepared.deps.files.filter((f) => f.thirdParty).length,
  };
};

/**
 * `rye lock update`: re-resolve the tool's chain, verify every signature and
 * dependency afresh, and write a new lockfile where the root tool's space
 * says (the one there is kept, byte for byte, when it already pins exactly
 * this: `unchanged`). Nothing is executed.
 * `registry` is recorded as the lockfile's `registry` field (a tool pulled
 * from a registry); without it, the field of the lockfile replaced is kept
 * when that one pinned the same root content.
 *
 * @throws RyeError every refusal code of the checks; FILE_WRITE_FAILED.
 */
export function updateLockfile(
  spaces: Spaces,
  toolId: string,
  trust: TrustSet,
  now: Date = new Date(),
  registry: Readonly<Record<string, unknown>> | null = null,
): Promise<{ path: string; lockfile: Lockfile; thirdParty: number; unchanged: boolean }> {
  return updateLockfileWith(prepareToPin, spaces, toolId, trust, now, registry);
}

/**
 * `rye lock verify`: check every lockfile (or those of one tool) against the
 * files today — pinned chain hashes, the chain resolving to the same files,
 * the signatures, and the pinned dependency hashes (added and removed files
 * included). Never throws for a bad lockfile: each gets a status.
 */
export function verifyLockfiles(
  spaces: Spaces,
  trust: TrustSet,
  toolId?: string,
): Promise<LockStatus[]> {
  // One cache for the whole listing: lockfiles share runtimes and libraries, and a
  // verdict is keyed by the file's bytes and rechecked against `trust` on each hit.
  const cache = new VerifiedFileCache();
  return verifyLockfilesWith(
    async (found) => {
      await prepareRun(spaces, found.lockfile.root.toolId, {
        trust,
        cache,
        lock: { mode: 'given', found },
      });
    },
    spaces,
    toolId,
  );
}
