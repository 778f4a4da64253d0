import { lstatSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { formatTimestamp, readSigner, signText, type Signer } from '../integrity/index.js';
import { keyDir, type Spaces } from '../items/index.js';
import { relativeInside } from '../platform/index.js';
import { lockfileName, writeDir } from './paths.js';
import { relativeToBase } from './run-check.js';
import { serializeLockfile } from './serialize.js';
import { readLockfileAt, writeLockfile } from './store.js';
import type { ChainLink, Lockfile, VerifiedDeps } from './types.js';

/**
 * A new lockfile for a run that just succeeded: v2 when dependencies were
 * verified (their raw hashes pinned), else v1. `anchor_path` is relative to the
 * base of the root tool's space (the project for project tools), never absolute.
 * `registry` is where the root tool was pulled from, or null.
 */
export function buildLockfile(
  chain: readonly ChainLink[],
  base: string,
  deps: {
    anchorPath: string;
    scope: VerifiedDeps['scope'];
    files: ReadonlyMap<string, string>;
  } | null,
  now: Date,
  registry: Readonly<Record<string, unknown>> | null = null,
): Lockfile {
  const root = chain[0] as ChainLink;
  const common = {
    generatedAt: formatTimestamp(now),
    root: { toolId: root.itemId, version: root.version ?? '0.0.0', integrity: root.integrity },
    resolvedChain: chain.map((e) => ({
      itemId: e.itemId,
      space: e.space,
      toolType: e.toolType,
      executorId: e.executorId,
      integrity: e.integrity,
    })),
    registry,
    signature: null,
  };
  if (deps === null) return { ...common, lockfileVersion: 1 };
  // serializeLockfile orders the files (by code point); insertion order does not matter here.
  const files: Record<string, string> = {};
  for (const [rel, sha] of deps.files) files[rel] = `sha256:${sha}`;
  const verifiedDeps: VerifiedDeps = {
    anchorPath: relativeToBase(base, deps.anchorPath),
    scope: deps.scope,
    files,
  };
  return { ...common, lockfileVersion: 2, verifiedDeps };
}

/**
 * Serialize, sign with the user's key when there is one (so the fast path can
 * trust it later), and write where the root tool's space says. Returns the
 * path and the lockfile as saved.
 *
 * With `carryRegistry` (a re-lock, `rye lock update`), the `registry` field of
 * the lockfile replaced is kept when that one pinned the same root content
 * (a pulled tool stays a pulled tool).
 *
 * Idempotent, like `rye sign`: when the lockfile there already says exactly
 * this and is signed as this save would sign it, it is kept byte for byte
 * (`unchanged`), so the bundle manifests that list it stay valid.
 */
export async function saveLockfile(
  spaces: Spaces,
  root: ChainLink,
  built: Lockfile,
  options: { readonly carryRegistry?: boolean } = {},
): Promise<{ path: string; lockfile: Lockfile; unchanged: boolean }> {
  const { path, old } = await replacedLockfile(spaces, root, built);
  const carried =
    options.carryRegistry === true && old?.lockfile.root.integrity === built.root.integrity;
  const lockfile = carried ? { ...built, registry: old.lockfile.registry } : built;
  const signer = await readSigner(keyDir(spaces)).catch((): Signer | null => null);
  if (old !== null && isKept(lockfile, old, signer)) return { path, lockfile, unchanged: true };
  const text = serializeLockfile(lockfile);
  const signed =
    signer === null ? text : signText(text, { itemType: 'tool', extension: '.json', signer }).text;
  await writeLockfile(spaces, root.space, signed, lockfile);
  return { path, lockfile, unchanged: false };
}

/**
 * Where `lockfile` is written, and the lockfile there now when it is a
 * regular file, in a folder no symbolic link leads out of the lockfiles
 * folder, that reads as this tool's (else null: none, unreadable, malformed
 * or out of place, which the write replaces or refuses as writeLockfile does).
 */
async function replacedLockfile(
  spaces: Spaces,
  root: ChainLink,
  lockfile: Lockfile,
): Promise<{ path: string; old: { lockfile: Lockfile; text: string } | null }> {
  const { toolId, version } = lockfile.root;
  const dir = writeDir(spaces, root.space);
  const path = join(dir, lockfileName(toolId, version));
  try {
    if (!lstatSync(path).isFile()) return { path, old: null };
    if (relativeInside(realpathSync(dir), realpathSync(dirname(path))) === undefined)
      return { path, old: null };
    return { path, old: await readLockfileAt(path, toolId, version) };
  } catch {
    return { path, old: null };
  }
}

/**
 * Whether the lockfile in place (`old`) is, byte for byte, what saving
 * `lockfile` would write but for `generated_at` and the signature, and is
 * signed as the save would sign it: by `signer` (an Ed25519 signature is
 * deterministic, so re-signing gives the very same one) or, without a key,
 * not at all. One signed by another key is replaced.
 */
function isKept(
  lockfile: Lockfile,
  old: { lockfile: Lockfile; text: string },
  signer: Signer | null,
): boolean {
  const { generatedAt, signature } = old.lockfile;
  if (serializeLockfile({ ...lockfile, generatedAt, signature }) !== old.text) return false;
  if (signer === null) return signature === null;
  return signText(old.text, { itemType: 'tool', extension: '.json', signer }).unchanged;
}
