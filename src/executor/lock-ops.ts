import { isRyeError, type ErrorCode } from '../errors/index.js';
import type { TrustSet } from '../integrity/index.js';
import type { Spaces } from '../items/index.js';
import { buildLockfile, listLockfiles, saveLockfile, type Lockfile } from '../lockfile/index.js';
import { prepareRun } from './prepare.js';
import type { ChainElement } from './types.js';
import { VerifiedFileCache } from './verify-deps.js';

/**
 * `rye lock update`: re-resolve the tool's chain, verify every signature and
 * dependency afresh (no cached verdicts, no old lockfile consulted), and write
 * a new lockfile where the root tool's space says (the one there is kept,
 * byte for byte, when it already pins exactly this: `unchanged`). Nothing is
 * executed.
 * `registry` is recorded as the lockfile's `registry` field (a tool pulled
 * from a registry); without it, the field of the lockfile replaced is kept
 * when that one pinned the same root content.
 *
 * @throws RyeError every refusal code of the checks; FILE_WRITE_FAILED.
 */
export async function updateLockfile(
  spaces: Spaces,
  toolId: string,
  trust: TrustSet,
  now: Date = new Date(),
  registry: Readonly<Record<string, unknown>> | null = null,
): Promise<{ path: string; lockfile: Lockfile; thirdParty: number; unchanged: boolean }> {
  const prepared = await prepareRun(spaces, toolId, {
    trust,
    cache: new VerifiedFileCache(),
    lock: { mode: 'ignore' },
    // Pinning is the user's approval of the third-party code it pins.
    acceptThirdParty: true,
  });
  const root = prepared.chain[0] as ChainElement;
  const built = buildLockfile(
    prepared.chain,
    spaces[root.space],
    prepared.deps.pins,
    now,
    registry,
  );
  const thirdParty = prepared.deps.files.filter((f) => f.thirdParty).length;
  const { path, lockfile, unchanged } = await saveLockfile(spaces, root, built, {
    carryRegistry: registry === null,
  });
  return { path, lockfile, thirdParty, unchanged };
}

/** The state of one lockfile against the files today. */
export interface LockStatus {
  readonly path: string;
  readonly space: string;
  readonly toolId: string;
  readonly version: string;
  readonly status: 'ok' | 'stale' | 'mismatch' | 'invalid';
  readonly code: ErrorCode | null;
  readonly message: string | null;
}

/**
 * `rye lock verify`: check every lockfile (or those of one tool) against the
 * files today — pinned chain hashes, the chain resolving to the same files,
 * the signatures, and the pinned dependency hashes (added and removed files
 * included). Never throws for a bad lockfile: each gets a status.
 */
export async function verifyLockfiles(
  spaces: Spaces,
  trust: TrustSet,
  toolId?: string,
): Promise<LockStatus[]> {
  const out: LockStatus[] = [];
  // One cache for the whole listing: lockfiles share runtimes and libraries, and a
  // verdict is keyed by the file's bytes and rechecked against `trust` on each hit.
  const cache = new VerifiedFileCache();
  for (const listed of await listLockfiles(spaces)) {
    if (toolId !== undefined && listed.toolId !== toolId) continue;
    const base = {
      path: listed.path,
      space: listed.space,
      toolId: listed.toolId,
      version: listed.version,
    };
    if (listed.lockfile === undefined || listed.text === undefined) {
      out.push({
        ...base,
        status: 'invalid',
        code: listed.error?.code ?? 'LOCKFILE_INVALID',
        message: listed.error?.message ?? null,
      });
      continue;
    }
    try {
      await prepareRun(spaces, listed.lockfile.root.toolId, {
        trust,
        cache,
        lock: {
          mode: 'given',
          found: {
            lockfile: listed.lockfile,
            path: listed.path,
            space: listed.space,
            text: listed.text,
          },
        },
      });
      out.push({ ...base, status: 'ok', code: null, message: null });
    } catch (error) {
      if (!isRyeError(error)) throw error;
      const status = error.code === 'LOCKFILE_STALE' ? 'stale' : 'mismatch';
      out.push({ ...base, status, code: error.code, message: error.message });
    }
  }
  return out;
}
