import { isRyeError, type ErrorCode } from '../errors/index.js';
import type { Spaces } from '../items/index.js';
import { listLockfiles, type FoundLockfile } from './store.js';

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
 * Checks one lockfile against the files today — the executor's steps 1–6
 * with this lockfile given (pinned chain hashes, the chain resolving to the
 * same files, the signatures, the pinned dependency hashes) — and throws the
 * refusal. A port: the executor provides it.
 */
export type CheckLockfile = (found: FoundLockfile) => Promise<void>;

/**
 * `rye lock verify`: check every lockfile (or those of one tool) with
 * `check`. Never throws for a bad lockfile: each gets a status
 * (LOCKFILE_STALE is `stale`, any other refusal `mismatch`, an unreadable or
 * malformed file `invalid`).
 */
export async function verifyLockfilesWith(
  check: CheckLockfile,
  spaces: Spaces,
  toolId?: string,
): Promise<LockStatus[]> {
  const out: LockStatus[] = [];
  for (const listed of await listLockfiles(spaces)) {
    if (toolId !== undefined && listed.toolId !== toolId) continue;
    const base = {
      path: listed.path,
      space: listed.space,
      toolId: listed.toolId,
      version: listed.version,
    };
    // A listed file carries either an error or its lockfile and text, never both.
    if (listed.error !== undefined) {
      out.push({
        ...base,
        status: 'invalid',
        code: listed.error.code,
        message: listed.error.message,
      });
      continue;
    }
    try {
      await check({
        lockfile: listed.lockfile,
        path: listed.path,
        space: listed.space,
        text: listed.text,
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
