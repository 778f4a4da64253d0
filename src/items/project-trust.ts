/**
 * Project trust needs the user's consent (docs/trust.md). Keys in a project's
 * `.ai/trusted_keys/` count only while the user has approved exactly that
 * store content for exactly that project folder (its real path); approvals
 * live in user space, never in the project, and approving copies no key.
 */
import { realpathSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { RyeError } from '../errors/index.js';
import {
  formatTimestamp,
  parseTrustSnapshot,
  readTrustSnapshot,
  trustSnapshotDigest,
  type LoadedTrust,
  type TrustSnapshot,
} from '../integrity/index.js';
import { writeFileAtomic } from '../platform/index.js';
import {
  formatApprovals,
  readApprovals,
  tryReadApprovals,
  type ProjectApproval,
} from './approvals.js';
import { aiDir, type Spaces } from './spaces.js';

/**
 * `none`: the project has no trusted-key files. `approved`: the user approved
 * this exact content. `pending`: keys are there but not approved (or changed
 * since). `own-store`: the project folder is the user or system space itself,
 * so its store is already read as that space's.
 */
export type ProjectTrustStatus = 'none' | 'approved' | 'pending' | 'own-store';

export interface ProjectTrust {
  /** The project's real path: approvals are keyed by it. */
  readonly project: string;
  /** `<project>/.ai/trusted_keys`. */
  readonly dir: string;
  readonly status: ProjectTrustStatus;
  /** SHA-256 of the store content now (trustSnapshotDigest). */
  readonly digest: string;
  /** What the user approved for this folder, if anything (possibly other content). */
  readonly approval: ProjectApproval | null;
  /** The store's keys as read (they count only when `status` is `approved`). */
  readonly loaded: LoadedTrust;
  readonly snapshot: TrustSnapshot;
  /** Why approvals could not be read (they are then treated as none). */
  readonly approvalsWarning: { path: string; code: string; message: string } | null;
}

/** The real path of a folder, or its absolute path when it does not exist. */
export async function realFolder(path: string): Promise<string> {
  // realpathSync.native is the same libc realpath as fs/promises' realpath,
  // without a thread-pool trip (three of them on every `rye execute`).
  try {
    return realpathSync.native(path);
  } catch {
    return resolve(path);
  }
}

/** `<user>/.ai/trust/approved-projects.json`. */
export function approvalsPath(spaces: Spaces): string {
  return join(aiDir(spaces, 'user'), 'trust', 'approved-projects.json');
}

/**
 * Read the project's trust store once and decide whether it counts. A
 * malformed approvals file approves nothing (reported in `approvalsWarning`).
 */
export async function readProjectTrust(spaces: Spaces): Promise<ProjectTrust> {
  const [project, user, system] = await Promise.all(
    [spaces.project, spaces.user, spaces.system].map(realFolder),
  );
  const dir = join(project ?? spaces.project, '.ai', 'trusted_keys');
  const snapshot = await readTrustSnapshot(dir);
  const digest = trustSnapshotDigest(snapshot);
  const loaded = parseTrustSnapshot(snapshot, 'project');
  const base = { project: project ?? spaces.project, dir, digest, loaded, snapshot };
  if (project === user || project === system) {
    return { ...base, status: 'own-store', approval: null, approvalsWarning: null };
  }
  const { approvals, warning } = await tryReadApprovals(approvalsPath(spaces));
  const approval = approvals.get(base.project) ?? null;
  const status: ProjectTrustStatus =
    snapshot.files.length === 0
      ? 'none'
      : approval !== null && approval.sha256 === digest
        ? 'approved'
        : 'pending';
  return { ...base, status, approval, approvalsWarning: warning };
}

/**
 * Approve the project's trust store as it is now: pin its digest for the
 * project's real path in user space (atomic write). A store with no key files,
 * or that is the user's or system's own, is returned unchanged (nothing to approve).
 * With `expected` (the digest `rye trust list` showed when the user reviewed
 * the store), a store that changed since is refused, never approved.
 *
 * @throws RyeError TRUST_PROJECT_CHANGED, TRUST_APPROVALS_INVALID (never
 *   overwrites a malformed file), FILE_WRITE_FAILED
 */
export async function approveProjectTrust(
  spaces: Spaces,
  expected?: string,
): Promise<ProjectTrust> {
  const state = await readProjectTrust(spaces);
  if (expected !== undefined && expected.toLowerCase() !== state.digest) {
    throw new RyeError(
      'TRUST_PROJECT_CHANGED',
      `Cannot approve the trust store of ${state.project}: its content is sha256 ${state.digest} now, not the ${expected} you reviewed; review ${state.dir} again`,
      { project: state.project, expected, actual: state.digest },
    );
  }
  if (state.status === 'none' || state.status === 'own-store') return state;
  return pinDigest(
    spaces,
    state,
    state.digest,
    state.loaded.keys.map((k) => k.fingerprint),
  );
}

/**
 * After the user's own command changed one file of the project store (a
 * registry pull or `rye trust add --space project` adding a key, `rye trust
 * remove` deleting one, a pull widening its own key file): keep the store approved when it was approved (or
 * empty) before, by pinning exactly the old content with that one change. A
 * store that held unapproved keys stays pending — this never approves what the
 * user has not seen. Returns whether an approval was pinned.
 *
 * @throws RyeError TRUST_APPROVALS_INVALID, FILE_WRITE_FAILED
 */
export async function keepApproved(
  spaces: Spaces,
  before: ProjectTrust,
  change: { name: string; bytes: Buffer | null; replaces?: boolean },
): Promise<boolean> {
  const adding = change.bytes !== null;
  if (before.status !== 'approved' && !(adding && before.status === 'none')) return false;
  const others = before.snapshot.files.filter((f) => f.name !== change.name);
  // Rewriting an existing file counts only when the caller says it means to (a
  // pull widening the scope of the key file an earlier pull wrote).
  if (adding && others.length !== before.snapshot.files.length && change.replaces !== true)
    return false;
  const files =
    change.bytes === null
      ? others
      : [...others, { name: change.name, bytes: change.bytes, error: null }];
  files.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const after = { dir: before.dir, files };
  const keys = parseTrustSnapshot(after, 'project').keys.map((k) => k.fingerprint);
  await pinDigest(spaces, before, trustSnapshotDigest(after), keys);
  return true;
}

/**
 * Withdraw the approval of the project's trust store.
 * Returns false when there was none.
 *
 * @throws RyeError TRUST_APPROVALS_INVALID, FILE_WRITE_FAILED
 */
export async function revokeProjectTrust(spaces: Spaces): Promise<boolean> {
  const project = await realFolder(spaces.project);
  const path = approvalsPath(spaces);
  const approvals = await readApprovals(path);
  if (!approvals.delete(project)) return false;
  await writeFileAtomic(path, formatApprovals(approvals), { mode: 0o600 });
  return true;
}

async function pinDigest(
  spaces: Spaces,
  state: ProjectTrust,
  digest: string,
  keys: readonly string[],
): Promise<ProjectTrust> {
  const path = approvalsPath(spaces);
  const approvals = await readApprovals(path);
  const approval: ProjectApproval = {
    sha256: digest,
    approvedAt: formatTimestamp(new Date()),
    keys: [...new Set(keys)].sort(),
  };
  approvals.set(state.project, approval);
  await writeFileAtomic(path, formatApprovals(approvals), { mode: 0o600 });
  return {
    ...state,
    approval,
    status: digest === state.digest ? 'approved' : state.status,
  };
}
