/**
 * `rye registry push-bundle <bundle_id>`: verify the bundle locally, upload
 * the blobs the registry lacks (bounded concurrency), publish the manifest,
 * and check the answer like a pull.
 */
import { join } from 'node:path';
import { RyeError } from '../../errors/index.js';
import {
  MAX_MANIFEST_BYTES,
  bundleManifestPath,
  parseManifest,
  verifyBundle,
  type BundleReport,
} from '../../bundle/index.js';
import { sha256Hex, trustSetOf, verifyText } from '../../integrity/index.js';
import { aiDir, assertNotReserved, loadSpaceTrust, parseItemId } from '../../items/index.js';
import { pathExists, readFileCapped, readTextFile, mapLimit } from '../../platform/index.js';
import { assertRegistryId } from '../names.js';
import { checkBundleAnswer, MAX_PULL_BUNDLE_BYTES } from './bundle-answer.js';
import { requireToken } from './credentials.js';
import { parseBundleVersionDocument } from './documents.js';
import { publishNamespace } from './namespace.js';
import { TRANSFER_CONCURRENCY } from './http.js';
import { blobPath } from './paths.js';
import { attestationSummary } from './pull-item.js';
import { pinnedRegistryKey } from './registry-key.js';
import type { TransferProgressFn } from './progress.js';
import type { RegistrySession } from './session.js';
import { verifyAnswer } from './verify-answer.js';

/** One blob upload may take this long. */
const BLOB_TIMEOUT_MS = 300_000;

export interface PushBundleInput {
  readonly bundleId: string;
  readonly namespace?: string | undefined;
  /** Told how the local verification and the uploads go. */
  readonly onProgress?: TransferProgressFn | undefined;
}

/**
 * @throws RyeError REGISTRY_AUTH_REQUIRED (before any network call),
 *   ITEM_ID_INVALID, ITEM_ID_RESERVED, BUNDLE_NOT_FOUND (no manifest in the project), the
 *   manifest's integrity code or BUNDLE_VERIFY_FAILED (it does not verify
 *   here: nothing is uploaded), the registry's codes, and every refusal of
 *   verifyAnswer / checkBundleAnswer.
 */
export async function pushBundle(
  session: RegistrySession,
  input: PushBundleInput,
): Promise<Record<string, unknown> & { ok: true }> {
  const { url } = session.endpoint;
  const { spaces } = session;
  const token = await requireToken(spaces, url, session.env, 'push a bundle');
  const bundleId = parseItemId(input.bundleId);
  assertRegistryId(bundleId);
  assertNotReserved(bundleId, 'push bundle');
  const path = bundleManifestPath(aiDir(spaces, 'project'), bundleId);
  if (!(await pathExists(path))) {
    throw new RyeError(
      'BUNDLE_NOT_FOUND',
      `Cannot push bundle ${bundleId}: no manifest at ${path}; create it with \`rye bundle create ${bundleId} --version X.Y.Z\``,
      { bundleId, path },
    );
  }
  const text = await readTextFile(path, MAX_MANIFEST_BYTES);
  const { trust } = await loadSpaceTrust(spaces);
  const progress = input.onProgress;
  const report = await verifyBundle({
    spaces,
    bundleId,
    trust,
    ...(progress === undefined
      ? {}
      : {
          onProgress: (files: number, filesTotal: number, bytes?: number) =>
            progress({ phase: 'verify', files, filesTotal, bytes: bytes ?? 0, bytesTotal: null }),
        }),
  });
  assertPublishable(report, path);
  const manifest = parseManifest(text, path);
  const local = verifyText(text, { itemType: 'tool', extension: '.yaml', trust: trustSetOf([]) });

  const namespace = await publishNamespace(session, token, input.namespace);
  const key = await pinnedRegistryKey(session);

  // One upload per distinct content; each file is re-read and re-hashed right
  // before it is sent, so only bytes the manifest names ever leave.
  const byHash = new Map<string, string>();
  for (const [rel, entry] of manifest.files)
    if (!byHash.has(entry.sha256)) byHash.set(entry.sha256, rel);
  let uploaded = 0;
  let bytesUploaded = 0;
  const blobs = [...byHash];
  const uploadProgress =
    progress === undefined
      ? undefined
      : (files: number, filesTotal: number) =>
          progress({ phase: 'upload', files, filesTotal, bytes: bytesUploaded, bytesTotal: null });
  uploadProgress?.(0, blobs.length);
  await mapLimit(
    blobs,
    TRANSFER_CONCURRENCY,
    async ([sha256, rel]) => {
      const head = await session.http.send({ method: 'HEAD', path: blobPath(sha256) });
      if (head.status === 200) return;
      if (head.status !== 404)
        throw session.http.failure({ method: 'HEAD', path: blobPath(sha256) }, head);
      const bytes = await readFileCapped(
        join(spaces.project, ...rel.split('/')),
        MAX_PULL_BUNDLE_BYTES,
      );
      if (sha256Hex(bytes) !== sha256) {
        throw new RyeError(
          'BUNDLE_VERIFY_FAILED',
          `Cannot push bundle ${bundleId}: ${rel} changed while it was being uploaded`,
          { path: rel, expected: sha256 },
        );
      }
      await session.http.ok({
        method: 'PUT',
        path: blobPath(sha256),
        bytes,
        token: token.token,
        timeoutMs: BLOB_TIMEOUT_MS,
      });
      uploaded += 1;
      bytesUploaded += bytes.length;
    },
    uploadProgress,
  );

  const { status, value } = await session.http.json({
    method: 'POST',
    path: '/v1/bundles',
    token: token.token,
    json: { namespace, bundle_id: bundleId, manifest: text },
  });
  const doc = parseBundleVersionDocument(value, url);
  const version = manifest.bundle.version;
  const verified = verifyAnswer(
    { kind: 'bundle', itemType: null, namespace, itemId: bundleId, version },
    key,
    doc,
  );
  checkBundleAnswer(verified, doc);
  if (verified.statement.content_hash !== local.contentHash) {
    throw new RyeError(
      'REGISTRY_ATTESTATION_MISMATCH',
      `Cannot accept the registry's answer to the push of bundle ${bundleId}: it attests another manifest (${verified.statement.content_hash}) than was pushed (${local.contentHash ?? 'unsigned'})`,
      { expected: local.contentHash, actual: verified.statement.content_hash },
    );
  }
  return {
    ok: true,
    action: 'push_bundle',
    registry: url,
    status: status === 201 ? 'created' : 'unchanged',
    namespace,
    bundle_id: bundleId,
    version,
    files: manifest.files.size,
    blobs_uploaded: uploaded,
    blobs_reused: byHash.size - uploaded,
    bytes_uploaded: bytesUploaded,
    unlisted: report.files.unlisted,
    attestation: attestationSummary(verified),
    registry_key: { fingerprint: key.fingerprint, pinned_now: key.pinnedNow },
  };
}

/** The manifest must verify and every listed file match; unlisted files are only reported. */
function assertPublishable(report: BundleReport, path: string): void {
  const { manifest, files, bundleId } = report;
  if (report.space !== 'project') {
    throw new RyeError(
      'BUNDLE_NOT_FOUND',
      `Cannot push bundle ${bundleId}: its manifest is not in the project (${path})`,
      { bundleId, path },
    );
  }
  if (!manifest.ok) {
    throw new RyeError(
      manifest.code ?? 'BUNDLE_VERIFY_FAILED',
      `Cannot push bundle ${bundleId}: its manifest does not verify here (${manifest.message})`,
      { bundleId, path },
    );
  }
  const bad = [
    ...files.missing.map((p) => `${p} (missing)`),
    ...files.tampered.map((t) => `${t.path} (changed)`),
    ...files.badSignature.map((b) => `${b.path} (${b.code})`),
  ];
  if (bad.length > 0) {
    throw new RyeError(
      'BUNDLE_VERIFY_FAILED',
      `Cannot push bundle ${bundleId}: ${bad.length} listed file${bad.length === 1 ? '' : 's'} no longer match the manifest (first: ${bad[0] ?? '?'}); re-sign and \`rye bundle create\` again`,
      { bundleId, files: bad },
    );
  }
}
