/**
 * `rye registry pull-bundle <namespace>/<bundle_id>`: fetch a bundle version,
 * verify its attestation, its registry and author signatures, every path and
 * every file's bytes — and only then write the files and the author-signed
 * manifest into the project. Any failure before the writes leaves the project
 * as it was.
 */
import { RyeError } from '../../errors/index.js';
import {
  MANIFEST_FILE,
  assertFoldersOwned,
  claimConflict,
  folderClaimed,
  readDigest,
  readFolderClaims,
} from '../../bundle/index.js';
import { sha256Hex } from '../../integrity/index.js';
import { assertNotReserved, reservedItemPath } from '../../items/index.js';
import { assertVersion, parseRegistryRef } from '../names.js';
import type { BundleFileDocument } from '../wire.js';
import { checkBundleAnswer } from './bundle-answer.js';
import { parseBundleVersionDocument } from './documents.js';
import {
  assertMatchesIndex,
  chooseVersion,
  fetchVerifiedIndex,
  indexSummary,
} from './fetch-index.js';
import { mapLimit } from '../../platform/index.js';
import { TRANSFER_CONCURRENCY } from './http.js';
import { blobPath, bundlePath } from './paths.js';
import { conflict, holdsBytes, inspectTarget, type Target } from './project-paths.js';
import { attestationSummary } from './pull-item.js';
import { pinnedRegistryKey } from './registry-key.js';
import type { TransferProgressFn } from './progress.js';
import type { RegistrySession } from './session.js';
import { writeAllOrNothing, type FileWrite } from './stage-files.js';
import { BUNDLE_ITEM_TYPES, trustAuthorKey, trustedAuthorJson } from './trust-author.js';
import { verifyAnswer } from './verify-answer.js';

/** One blob download may take this long. */
const BLOB_TIMEOUT_MS = 300_000;

export interface PullBundleInput {
  /** `<namespace>/<bundle_id>`. */
  readonly ref: string;
  readonly version?: string | undefined;
  readonly force?: boolean | undefined;
  /** Told how the downloads go. */
  readonly onProgress?: TransferProgressFn | undefined;
}

/**
 * @throws RyeError REGISTRY_REF_INVALID, ITEM_ID_RESERVED (before any network call),
 *   the registry's and the transport's
 *   codes, every refusal of fetchVerifiedIndex (REGISTRY_INDEX_*),
 *   REGISTRY_NOT_FOUND (not in the signed index), REGISTRY_INDEX_MISMATCH,
 *   every refusal of verifyAnswer and checkBundleAnswer,
 *   REGISTRY_CONTENT_INVALID (a blob with the wrong size or hash),
 *   REGISTRY_PULL_CONFLICT, BUNDLE_FOLDER_CLAIMED (a file or app folder in
 *   another project bundle's folder), BUNDLE_FOLDER_OCCUPIED (a file written
 *   into a folder that holds files the bundle does not own),
 *   INTEGRITY_SYMLINK_ESCAPE, FILE_WRITE_FAILED.
 */
export async function pullBundle(
  session: RegistrySession,
  input: PullBundleInput,
): Promise<Record<string, unknown> & { ok: true }> {
  const { namespace, itemId: bundleId } = parseRegistryRef(input.ref);
  assertNotReserved(bundleId, 'pull bundle');
  const version = input.version ?? null;
  if (version !== null) assertVersion(version);
  const { url } = session.endpoint;
  const project = session.spaces.project;

  const key = await pinnedRegistryKey(session);
  const pkg = { kind: 'bundle', itemType: null, namespace, itemId: bundleId } as const;
  const index = await fetchVerifiedIndex(session, key, pkg);
  const entry = chooseVersion(index, version, url);
  const { value } = await session.http.json({
    method: 'GET',
    path: bundlePath(namespace, bundleId),
    query: { version: entry.version },
  });
  const doc = parseBundleVersionDocument(value, url);
  const verified = verifyAnswer({ ...pkg, version: entry.version }, key, doc);
  assertMatchesIndex(entry, verified.statement, url);
  const checked = checkBundleAnswer(verified, doc);
  for (const file of checked.files) {
    const reserved = reservedItemPath(file.path);
    if (reserved !== undefined)
      assertNotReserved(reserved, `pull ${file.path} from ${namespace}/${bundleId}`);
  }
  const label = `${namespace}/${bundleId}@${verified.statement.version}`;

  // Every target checked, and every conflict found, before a byte is downloaded.
  // checkBundleAnswer kept the paths in the bundle's lane; none may land in another bundle's folder.
  const claims = await readFolderClaims(session.spaces, bundleId);
  const paths = checked.files.map((f) => f.path);
  const claimed = claimConflict(checked.manifest.bundle.includes, paths, claims);
  if (claimed !== undefined) throw folderClaimed(`pull ${label}; nothing was written`, claimed);
  const manifestBytes = Buffer.from(verified.text, 'utf8');
  const manifestTarget = await inspectTarget(project, `.ai/bundles/${bundleId}/${MANIFEST_FILE}`);
  const targets = new Map<string, Target>();
  for (const file of checked.files) targets.set(file.path, await inspectTarget(project, file.path));
  const unchanged = new Set<string>();
  for (const file of checked.files)
    if (await holdsHash(targets.get(file.path) as Target, file)) unchanged.add(file.path);
  const wanted = checked.files.filter((f) => !unchanged.has(f.path));
  // No file lands in a folder holding files this bundle does not own (a tool of yours): not even with --force.
  await assertFoldersOwned({
    project,
    manifest: checked.manifest,
    author: { ...verified.author, owner: label, attestation: '', source: null },
    paths: wanted.map((f) => f.path),
    verb: `pull ${label}; nothing was written`,
  });
  for (const file of wanted)
    refuseOverwrite(targets.get(file.path) as Target, input.force === true);
  const manifestUnchanged = await holdsBytes(manifestTarget, manifestBytes);
  if (!manifestUnchanged) refuseOverwrite(manifestTarget, input.force === true);

  const blobs = await download(session, label, wanted, input.onProgress);
  const writes: FileWrite[] = wanted.map((f) => ({
    absolute: (targets.get(f.path) as Target).absolute,
    bytes: blobs.get(f.sha256) as Buffer,
  }));
  if (!manifestUnchanged) writes.push({ absolute: manifestTarget.absolute, bytes: manifestBytes });
  await writeAllOrNothing(writes);
  // The author's key may sign this bundle's manifest and the items in its folders, nothing more.
  const trusted = await trustAuthorKey(session, verified.author, namespace, key.fingerprint, {
    ids: [bundleId, `${bundleId}/**`],
    itemTypes: BUNDLE_ITEM_TYPES,
  });
  return {
    ok: true,
    action: 'pull_bundle',
    registry: url,
    namespace,
    bundle_id: bundleId,
    version: verified.statement.version,
    manifest_path: manifestTarget.absolute,
    files_written: wanted.map((f) => f.path),
    files_unchanged: [...unchanged],
    bytes: checked.bytes,
    // The signed index says, not the answer's unsigned flag.
    yanked: entry.yanked,
    index: indexSummary(index),
    attestation: attestationSummary(verified),
    registry_key: { fingerprint: key.fingerprint, pinned_now: key.pinnedNow },
    trusted_key: trustedAuthorJson(trusted),
  };
}

function refuseOverwrite(target: Target, force: boolean): void {
  if (target.kind === 'other') throw conflict(target, 'a folder or special file is there');
  if (target.kind !== 'missing' && !force) throw conflict(target);
}

async function holdsHash(target: Target, file: BundleFileDocument): Promise<boolean> {
  if (target.kind !== 'file' || target.size !== file.size) return false;
  return (await readDigest(target.absolute)).sha256 === file.sha256;
}

/** Bytes allowed for a blob answer that turns out to be an error document. */
const ERROR_ANSWER_BYTES = 64 * 1024;

/** Every distinct blob, each checked for its exact size and SHA-256. */
async function download(
  session: RegistrySession,
  label: string,
  files: readonly BundleFileDocument[],
  progress: TransferProgressFn | undefined,
): Promise<Map<string, Buffer>> {
  const distinct = new Map<string, BundleFileDocument>();
  for (const f of files) if (!distinct.has(f.sha256)) distinct.set(f.sha256, f);
  const blobs = new Map<string, Buffer>();
  const bytesTotal = [...distinct.values()].reduce((sum, f) => sum + f.size, 0);
  let bytes = 0;
  const report =
    progress === undefined
      ? undefined
      : (files: number, filesTotal: number) =>
          progress({ phase: 'download', files, filesTotal, bytes, bytesTotal });
  report?.(0, distinct.size);
  await mapLimit(
    [...distinct.values()],
    TRANSFER_CONCURRENCY,
    async (file) => {
      const answer = await session.http
        .send({
          method: 'GET',
          path: blobPath(file.sha256),
          // Room for an error document, so a registry's refusal is reported as itself.
          maxBytes: Math.max(file.size, ERROR_ANSWER_BYTES),
          timeoutMs: BLOB_TIMEOUT_MS,
        })
        .catch((error: unknown) => {
          // An answer longer than announced is bad content, not a bad protocol.
          if (error instanceof RyeError && error.code === 'REGISTRY_BAD_RESPONSE')
            throw blobInvalid(label, file, `more than ${file.size} bytes`, null);
          throw error;
        });
      if (answer.status !== 200)
        throw session.http.failure({ method: 'GET', path: blobPath(file.sha256) }, answer);
      const actual = sha256Hex(answer.body);
      if (answer.body.length !== file.size || actual !== file.sha256)
        throw blobInvalid(label, file, `${answer.body.length} bytes hashing to ${actual}`, actual);
      blobs.set(file.sha256, answer.body);
      bytes += answer.body.length;
    },
    report,
  );
  return blobs;
}

function blobInvalid(
  label: string,
  file: BundleFileDocument,
  got: string,
  actual: string | null,
): RyeError {
  return new RyeError(
    'REGISTRY_CONTENT_INVALID',
    `Cannot accept ${label}: ${file.path} should be ${file.size} bytes with SHA-256 ${file.sha256}, the registry sent ${got}; nothing was written`,
    { path: file.path, expected: file.sha256, actual, size: file.size },
  );
}
