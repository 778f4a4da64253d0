import type { TrustSet } from '../integrity/index.js';
import type { Spaces } from '../items/index.js';
import { buildLockfile, saveLockfile } from './pin.js';
import type { DepsSnapshot } from './run-check.js';
import type { ChainLink, Lockfile } from './types.js';

/** A tool verified afresh for pinning: its chain and its dependency pins. */
export interface PinnableRun {
  /** The chain, the tool first, every element verified. */
  readonly chain: readonly ChainLink[];
  /** The anchor scope's raw hashes, or null when the run verifies no dependencies. */
  readonly pins: DepsSnapshot | null;
  /** How many of the verified files are third-party code, pinned by hash alone. */
  readonly thirdParty: number;
}

/**
 * The executor's steps 1–6 as a lockfile update needs them: build and verify
 * the tool's chain and every dependency, no cached verdicts and no lockfile
 * consulted, third-party files accepted (pinning is the user's approval of
 * them). A port: the lockfile domain sits below the executor, which provides
 * it (`prepareToPin`); a registry pull gets it from the composition root.
 */
export type PrepareToPin = (
  spaces: Spaces,
  toolId: string,
  trust: TrustSet,
) => Promise<PinnableRun>;

/**
 * `rye lock update`: re-resolve the tool's chain, verify every signature and
 * dependency afresh (`prepare`), and write a new lockfile where the root
 * tool's space says (the one there is kept, byte for byte, when it already
 * pins exactly this: `unchanged`). Nothing is executed.
 * `registry` is recorded as the lockfile's `registry` field (a tool pulled
 * from a registry); without it, the field of the lockfile replaced is kept
 * when that one pinned the same root content.
 *
 * @throws RyeError every refusal code of `prepare`; FILE_WRITE_FAILED.
 */
export async function updateLockfileWith(
  prepare: PrepareToPin,
  spaces: Spaces,
  toolId: string,
  trust: TrustSet,
  now: Date = new Date(),
  registry: Readonly<Record<string, unknown>> | null = null,
): Promise<{ path: string; lockfile: Lockfile; thirdParty: number; unchanged: boolean }> {
  const { chain, pins, thirdParty } = await prepare(spaces, toolId, trust);
  const root = chain[0] as ChainLink;
  const built = buildLockfile(chain, spaces[root.space], pins, now, registry);
  const { path, lockfile, unchanged } = await saveLockfile(spaces, root, built, {
    carryRegistry: registry === null,
  });
  return { path, lockfile, thirdParty, unchanged };
}
