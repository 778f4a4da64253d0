/**
 * The user's approvals of project trust stores, `<user>/.ai/trust/approved-projects.json`:
 *
 * ```json
 * { "version": 1, "projects": { "/real/path": { "sha256": "…", "approved_at": "…", "keys": ["fp", …] } } }
 * ```
 *
 * Written by rye only (atomically, mode 0600), read on every trust load.
 */
import { RyeError, isRyeError } from '../errors/index.js';
import { decodeText, readFileCappedStatSync } from '../platform/index.js';

/** One approved project store. */
export interface ProjectApproval {
  /** trustSnapshotDigest of the approved `.ai/trusted_keys/` content. */
  readonly sha256: string;
  readonly approvedAt: string;
  /** Fingerprints in the approved store, for display only. */
  readonly keys: readonly string[];
}

/** Approvals by project real path. */
export type Approvals = Map<string, ProjectApproval>;

const MAX_APPROVALS_BYTES = 4 * 1024 * 1024;
const SHA256_RE = /^[0-9a-f]{64}$/;

/**
 * Parse the approvals document. Pure.
 *
 * @throws RyeError TRUST_APPROVALS_INVALID
 */
export function parseApprovals(text: string, path: string): Approvals {
  const invalid = (why: string): RyeError =>
    new RyeError('TRUST_APPROVALS_INVALID', `Cannot read project approvals ${path}: ${why}`, {
      path,
    });
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw invalid('it is not JSON');
  }
  if (!isObject(doc) || doc['version'] !== 1 || !isObject(doc['projects']))
    throw invalid('expected {"version": 1, "projects": {…}}');
  const out: Approvals = new Map();
  for (const [project, entry] of Object.entries(doc['projects'])) {
    if (!isObject(entry)) throw invalid(`the entry for ${project} is not an object`);
    const { sha256, approved_at: approvedAt, keys } = entry;
    if (
      typeof sha256 !== 'string' ||
      !SHA256_RE.test(sha256) ||
      typeof approvedAt !== 'string' ||
      !Array.isArray(keys) ||
      !keys.every((k) => typeof k === 'string')
    ) {
      throw invalid(`the entry for ${project} needs sha256 (64 hex), approved_at and keys`);
    }
    out.set(project, { sha256, approvedAt, keys: keys as string[] });
  }
  return out;
}

/** The approvals document, projects sorted by path, 2-space indent. Pure. */
export function formatApprovals(approvals: Approvals): string {
  const projects: Record<string, unknown> = {};
  for (const project of [...approvals.keys()].sort()) {
    const a = approvals.get(project) as ProjectApproval;
    projects[project] = { sha256: a.sha256, approved_at: a.approvedAt, keys: a.keys };
  }
  return JSON.stringify({ version: 1, projects }, null, 2) + '\n';
}

/**
 * Read approvals; a missing file is none.
 *
 * @throws RyeError TRUST_APPROVALS_INVALID, FILE_UNREADABLE, FILE_TOO_LARGE, FILE_BINARY
 */
export async function readApprovals(path: string): Promise<Approvals> {
  let text: string;
  try {
    // Synchronous (readTextFile's steps): a small file read on every `rye execute`.
    text = decodeText(readFileCappedStatSync(path, MAX_APPROVALS_BYTES), path);
  } catch (error) {
    if (isMissing(error)) return new Map();
    throw error;
  }
  return parseApprovals(text, path);
}

/** Read approvals for a trust load: any failure approves nothing and is reported, never thrown. */
export async function tryReadApprovals(path: string): Promise<{
  approvals: Approvals;
  warning: { path: string; code: string; message: string } | null;
}> {
  try {
    return { approvals: await readApprovals(path), warning: null };
  } catch (error) {
    if (!isRyeError(error)) throw error;
    return {
      approvals: new Map(),
      warning: { path, code: error.code, message: error.message },
    };
  }
}

function isMissing(error: unknown): boolean {
  const cause = isRyeError(error) ? (error.cause as NodeJS.ErrnoException | undefined) : undefined;
  return cause?.code === 'ENOENT';
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
