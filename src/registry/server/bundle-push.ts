import { RyeError } from '../../errors/index.js';
import { MAX_MANIFEST_BYTES, manifestPathProblem, parseManifest } from '../../bundle/index.js';
import { assertNotReserved, reservedItemPath } from '../../items/index.js';
import { assertRegistryId, assertVersion } from '../names.js';
import type { BundleVersionDocument } from '../wire.js';
import { bundleAnswer } from './answers.js';
import { assertOwner } from './auth.js';
import { checkAuthorSignature } from './author-signature.js';
import { MAX_NAME_LENGTH, stringField, type Fields } from './body.js';
import type { ServerContext } from './context.js';
import { tooLarge } from './errors.js';
import { publishVersion } from './publish.js';
import type { BundleFileRecord, TokenRecord } from './store/index.js';

export const BUNDLE_PUSH_FIELDS = ['namespace', 'bundle_id', 'manifest'] as const;

/**
 * `POST /v1/bundles`: parse the author-signed manifest, check its signature
 * and that every listed file is stored under its hash, attest the manifest
 * and publish the version with all its file rows at once.
 *
 * @throws RyeError REGISTRY_FORBIDDEN, REGISTRY_INVALID_REQUEST, REGISTRY_REF_INVALID,
 *   ITEM_ID_RESERVED (a bundle id or an item file under rye/),
 *   REGISTRY_BODY_TOO_LARGE, BUNDLE_MANIFEST_INVALID, REGISTRY_AUTHOR_KEY_UNKNOWN,
 *   REGISTRY_SIGNATURE_INVALID, REGISTRY_BLOB_MISSING, REGISTRY_VERSION_CONFLICT
 */
export async function pushBundle(
  ctx: ServerContext,
  token: TokenRecord,
  body: Fields,
): Promise<{ status: 200 | 201; document: BundleVersionDocument }> {
  const namespace = stringField(body, 'namespace', MAX_NAME_LENGTH);
  assertOwner(token, namespace);
  const bundleId = stringField(body, 'bundle_id', MAX_NAME_LENGTH);
  assertRegistryId(bundleId);
  assertNotReserved(bundleId, 'publish bundle');
  const text = stringField(body, 'manifest', Number.MAX_SAFE_INTEGER);
  if (Buffer.byteLength(text, 'utf8') > MAX_MANIFEST_BYTES) {
    throw tooLarge('the manifest', MAX_MANIFEST_BYTES);
  }
  const label = `${namespace}/${bundleId} manifest`;
  const manifest = parseManifest(text, label);
  if (manifest.bundle.id !== bundleId) {
    throw invalidManifest(label, `it declares bundle ${manifest.bundle.id}, not ${bundleId}`);
  }
  const version = manifest.bundle.version;
  assertVersion(version);
  for (const path of manifest.files.keys()) {
    const why = manifestPathProblem(path);
    if (why !== undefined) throw invalidManifest(label, `path ${JSON.stringify(path)}: ${why}`);
    const reserved = reservedItemPath(path);
    if (reserved !== undefined) assertNotReserved(reserved, `publish ${path} in a bundle`);
  }
  const trust = await ctx.authorKeys.trustOf(token.accountId, token.username);
  const signAs = { itemType: 'tool', extension: '.yaml' } as const;
  const author = checkAuthorSignature({ text, ...signAs, label }, trust);

  const published = await publishVersion(ctx, {
    key: { kind: 'bundle', itemType: null, namespace, itemId: bundleId },
    version,
    extension: null,
    text,
    signAs,
    author,
    description: manifest.bundle.description.trim() === '' ? null : manifest.bundle.description,
    files: () => storedFiles(ctx, manifest.files),
  });
  return {
    status: published.status,
    document: await bundleAnswer(ctx, published.record, published.bytes),
  };
}

/**
 * Every listed file, read back from the blob store (which re-hashes it), with
 * its size. The first missing one is named by path.
 * @throws RyeError REGISTRY_BLOB_MISSING, REGISTRY_BLOB_CORRUPT
 */
async function storedFiles(
  ctx: ServerContext,
  files: ReadonlyMap<string, { readonly sha256: string }>,
): Promise<BundleFileRecord[]> {
  const entries = [...files].map(([path, entry]) => ({ path, sha256: entry.sha256 }));
  const missing = await ctx.store.missingBlob(entries.map((e) => e.sha256));
  const first = entries.find((e) => e.sha256 === missing);
  if (first !== undefined) throw blobMissing(first.path, first.sha256);
  const sizes = new Map<string, number>();
  const out: BundleFileRecord[] = [];
  for (const { path, sha256 } of entries) {
    let size = sizes.get(sha256);
    if (size === undefined) {
      const bytes = await ctx.store.getBlob(sha256);
      if (bytes === null) throw blobMissing(path, sha256);
      size = bytes.length;
      sizes.set(sha256, size);
    }
    out.push({ path, sha256, size });
  }
  return out;
}

function blobMissing(path: string, sha256: string): RyeError {
  return new RyeError(
    'REGISTRY_BLOB_MISSING',
    `Cannot publish the bundle: ${path} (sha256 ${sha256}) is not uploaded; PUT /v1/blobs/${sha256} first`,
    { path, sha256 },
  );
}

function invalidManifest(label: string, why: string): RyeError {
  return new RyeError('BUNDLE_MANIFEST_INVALID', `Cannot publish ${label}: ${why}`, {
    source: label,
  });
}
