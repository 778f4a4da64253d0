/**
 * The bundle half of a pull's checks, after verifyAnswer: the author-signed
 * manifest must be the bundle asked for, name only paths inside the bundle's
 * own folders, and be exactly the file list the answer announces. Pure.
 */
import { RyeError } from '../../errors/index.js';
import { manifestScopeProblem, parseManifest, type BundleManifest } from '../../bundle/index.js';
import type { BundleFileDocument, BundleVersionDocument } from '../wire.js';
import type { VerifiedAnswer } from './verify-answer.js';

/** Total bytes a pulled bundle may hold: blobs are kept in memory until all verified. */
export const MAX_PULL_BUNDLE_BYTES = 1024 * 1024 * 1024;

export interface CheckedBundle {
  readonly manifest: BundleManifest;
  /** The files to download, in manifest (path) order, with their sizes. */
  readonly files: readonly BundleFileDocument[];
  readonly bytes: number;
}

/**
 * @throws RyeError BUNDLE_MANIFEST_INVALID (the author manifest does not
 *   parse), REGISTRY_ATTESTATION_MISMATCH (another bundle id or version),
 *   REGISTRY_CONTENT_INVALID (a path outside the bundle, a file list that
 *   differs from the manifest, too many bytes).
 */
export function checkBundleAnswer(
  verified: VerifiedAnswer,
  answer: BundleVersionDocument,
): CheckedBundle {
  const { statement } = verified;
  const label = `${statement.namespace}/${statement.item_id}@${statement.version}`;
  const manifest = parseManifest(verified.text, `${label} manifest`);
  const info = manifest.bundle;
  for (const [field, signed, declared] of [
    ['id', statement.item_id, info.id],
    ['version', statement.version, info.version],
  ] as const) {
    if (signed !== declared) {
      throw new RyeError(
        'REGISTRY_ATTESTATION_MISMATCH',
        `Cannot accept ${label}: its manifest declares bundle ${field} ${JSON.stringify(declared).slice(0, 120)}`,
        { field, expected: signed, actual: declared },
      );
    }
  }
  const invalid = (why: string, details: Record<string, unknown> = {}): never => {
    throw new RyeError('REGISTRY_CONTENT_INVALID', `Cannot accept ${label}: ${why}`, details);
  };
  const outOfScope = manifestScopeProblem(manifest, info.id);
  if (outOfScope !== undefined) invalid(`its manifest is refused: ${outOfScope}`);
  for (const path of manifest.files.keys()) {
    // A file and a folder cannot share one name: `a` and `a/b` cannot both be written.
    for (let at = path.indexOf('/'); at !== -1; at = path.indexOf('/', at + 1)) {
      if (manifest.files.has(path.slice(0, at)))
        invalid(`its manifest lists ${path.slice(0, at)} both as a file and as a folder`, { path });
    }
  }

  const announced = new Map<string, BundleFileDocument>();
  for (const file of answer.files) {
    if (announced.has(file.path)) invalid(`the answer lists ${file.path.slice(0, 200)} twice`);
    announced.set(file.path, file);
  }
  const files: BundleFileDocument[] = [];
  let bytes = 0;
  for (const [path, entry] of manifest.files) {
    const file = announced.get(path);
    if (file === undefined) invalid(`the answer does not list ${path.slice(0, 200)}`, { path });
    else if (file.sha256 !== entry.sha256)
      invalid(`the answer gives ${path.slice(0, 200)} another hash than the manifest`, {
        path,
        expected: entry.sha256,
        actual: file.sha256,
      });
    else {
      files.push(file);
      bytes += file.size;
    }
  }
  if (announced.size !== manifest.files.size) {
    const extra = [...announced.keys()].find((p) => !manifest.files.has(p)) ?? '?';
    invalid(`the answer lists ${extra.slice(0, 200)}, which the manifest does not`, {
      path: extra,
    });
  }
  if (bytes > MAX_PULL_BUNDLE_BYTES)
    invalid(`it holds ${bytes} bytes, over the pull cap of ${MAX_PULL_BUNDLE_BYTES}`);
  return { manifest, files, bytes };
}
