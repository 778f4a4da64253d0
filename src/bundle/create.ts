/**
 * `rye bundle create` (seed 002, "Manifest Generation"): collect the bundle's
 * files, hash them, write the manifest and sign it like a YAML tool.
 */
import { relative, sep } from 'node:path';
import { RyeError } from '../errors/index.js';
import { formatTimestamp, signText, type Signer, type TrustSet } from '../integrity/index.js';
import { aiDir, isSemver, resolveItem, type ItemType, type Spaces } from '../items/index.js';
import { writeFileAtomic } from '../platform/index.js';
import { collectBundleFiles } from './collect.js';
import { claimConflict, folderClaimed, readFolderClaims } from './folder-claims.js';
import { hashFiles, type ProgressFn } from './hash-files.js';
import { assertIncludesUsable, normalizeIncludes } from './includes.js';
import { assertInlineSignatures, creatorTrust } from './inline-signature.js';
import { bundleManifestPath } from './manifest-path.js';
import { serializeManifest } from './manifest-serialize.js';
import {
  assertReplaceable,
  keepCreatedAt,
  readPreviousManifest,
  textToSign,
} from './previous-manifest.js';
import type { BundleManifest, ManifestEntry } from './types.js';

export interface CreateBundleInput {
  readonly spaces: Spaces;
  readonly bundleId: string;
  /** Semver. */
  readonly version: string;
  /** The item an agent starts from; it must resolve in the project and be in the bundle. */
  readonly entrypoint?: { readonly itemType: ItemType; readonly itemId: string } | null;
  readonly description?: string;
  /** Declared app folders, project-relative (`task-manager`). */
  readonly includes?: readonly string[];
  /** Segment names left out; defaults to `DEFAULT_BUNDLE_EXCLUDES`. */
  readonly exclude?: readonly string[];
  /**
   * List every file of the app folders' `node_modules` too (dot entries and
   * the excludes aside: none apply there), so the node runtime's guard lets
   * the app load its dependencies. Without it an app must be dependency-free.
   */
  readonly includeNodeModules?: boolean;
  readonly signer: Signer;
  /**
   * Keys the inline signatures of the bundle's items are checked with; default
   * the spaces' trust plus the signer's own key (`creatorTrust`).
   */
  readonly trust?: TrustSet;
  /** Replace a manifest of the same version with other content (or one that does not read). */
  readonly force?: boolean;
  readonly now?: Date;
  /** Called as files are hashed. */
  readonly onProgress?: ProgressFn;
}

export interface CreatedBundle {
  /** The manifest written, `<project>/.ai/bundles/<id>/manifest.yaml`. */
  readonly path: string;
  readonly manifest: BundleManifest;
  readonly fileCount: number;
  /** Total size of the listed files. */
  readonly bytes: number;
  /**
   * `created` (no manifest was there), `replaced`, or `unchanged`: the same
   * files, version and key as the manifest in place, which was kept byte for byte.
   */
  readonly status: 'created' | 'replaced' | 'unchanged';
}

/**
 * Create (or replace) a bundle's signed manifest in the project space. The
 * manifest is written atomically: a failure leaves the previous one in place.
 * Every file that carries an inline signature must verify (on the bytes
 * hashed) before the manifest vouches for it. Re-creating an unchanged bundle
 * leaves its manifest byte for byte; replacing a manifest of the same version
 * with other content needs `force`.
 *
 * @throws RyeError USAGE_INVALID_ARGUMENT (version, an include that is not an
 *   app folder or does not exist), ITEM_ID_INVALID,
 *   ITEM_NOT_FOUND / ITEM_AMBIGUOUS (entrypoint), BUNDLE_MANIFEST_INVALID (an
 *   include that is a file, a link in the bundle, an entrypoint outside it), BUNDLE_EMPTY,
 *   BUNDLE_FOLDER_CLAIMED (an app folder or a file in another project bundle's folder),
 *   the integrity code of an item whose inline signature fails (INTEGRITY_*,
 *   TRUST_PROJECT_UNAPPROVED), BUNDLE_EXISTS, FILE_UNREADABLE, FILE_WRITE_FAILED.
 */
export async function createBundle(input: CreateBundleInput): Promise<CreatedBundle> {
  const { spaces, bundleId } = input;
  if (!isSemver(input.version as unknown)) {
    throw new RyeError(
      'USAGE_INVALID_ARGUMENT',
      `Cannot create bundle ${bundleId}: version "${input.version.slice(0, 100)}" is not a semantic version (X.Y.Z)`,
      { bundleId, version: input.version },
    );
  }
  const path = bundleManifestPath(aiDir(spaces, 'project'), bundleId);
  const includes = normalizeIncludes(input.includes ?? []);
  await assertIncludesUsable(spaces.project, bundleId, includes);
  const entrypoint = input.entrypoint ?? null;
  const entryPath =
    entrypoint === null
      ? null
      : (await resolveItem(spaces, entrypoint.itemType, entrypoint.itemId, ['project'])).path;
  const collected = await collectBundleFiles(spaces.project, bundleId, includes, {
    exclude: input.exclude,
    nodeModules: input.includeNodeModules === true,
  });
  if (entrypoint !== null && entryPath !== null) {
    const rel = relative(spaces.project, entryPath).split(sep).join('/');
    if (!collected.some((f) => f.path === rel)) {
      throw new RyeError(
        'BUNDLE_MANIFEST_INVALID',
        `Cannot create bundle ${bundleId}: entrypoint ${entrypoint.itemType} ${entrypoint.itemId} (${rel}) is not one of the bundle's files`,
        { bundleId, entrypoint, path: rel },
      );
    }
  }

  // Another bundle's app folder (or a nested bundle's item folder) is not this bundle's lane.
  const claims = await readFolderClaims(spaces, bundleId);
  const claimed = claimConflict(
    includes,
    collected.map((f) => f.path),
    claims,
  );
  if (claimed !== undefined) throw folderClaimed(`create bundle ${bundleId}`, claimed);

  const hashed = await hashFiles(collected, input.onProgress, { keepSignedBytes: true });
  await assertInlineSignatures(
    bundleId,
    hashed,
    input.trust ?? (await creatorTrust(spaces, input.signer)),
  );
  const files = new Map<string, ManifestEntry>();
  let bytes = 0;
  for (const file of hashed) {
    files.set(file.path, { sha256: file.sha256, inlineSigned: file.inlineSigned });
    bytes += file.size;
  }
  const fresh: BundleManifest = {
    bundle: {
      id: bundleId,
      version: input.version,
      createdAt: formatTimestamp(input.now ?? new Date()),
      entrypoint:
        entrypoint === null ? null : { itemType: entrypoint.itemType, itemId: entrypoint.itemId },
      description: input.description ?? '',
      includes,
    },
    files,
  };
  const previous = await readPreviousManifest(path);
  assertReplaceable(path, fresh, previous, input.force === true);
  const manifest = keepCreatedAt(fresh, previous);
  const signed = signText(textToSign(serializeManifest(manifest), previous), {
    itemType: 'tool',
    extension: '.yaml',
    signer: input.signer,
    path,
    ...(input.now === undefined ? {} : { now: input.now }),
  });
  if (!signed.unchanged) await writeFileAtomic(path, signed.text);
  const status = signed.unchanged ? 'unchanged' : previous === null ? 'created' : 'replaced';
  return { path, manifest, fileCount: files.size, bytes, status };
}
