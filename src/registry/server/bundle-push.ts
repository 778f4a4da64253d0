import { RyeError } from '../../errors/index.js';
import { manifestPathProblem, manifestScopeProblem } from '../../bundle/index.js';
import { assertNotReserved, reservedItemPath } from '../../items/index.js';
import { assertRegistryId, assertVersion } from '../names.js';
import type { BundleVersionDocument } from '../wire.js';
import { bundleAnswer } from './answers.js';
import { assertOwner } from './auth.js';
import { checkAuthorSignature } from './author-signature.js';
import { MAX_NAME_LENGTH, stringField, type Fields } from './body.js';
import type { ServerContext } from './context.js';
import { tooLarge } from './errors.js';
import { parsePushedManifest } from './manifest-guard.js';
import { publishVersion } from './publish.js';
import { PROVENANCE_ALLOWANCE } from './quota.js';
import { yieldToLoop } from './yield.js';
import type { BundleFileRecord, TokenRecord } from './store/index.js';

export const BUNDLE_PUSH_FIELDS = ['namespace', 'bundle_id', 'manifest'] as const;

/**
 * `POST /v1/bundles`: check the manifest's size and the account's quota,
 * then its author signature over the raw text, and only then parse it (under
 * the registry's parse caps); check that every listed file is stored under
 * its hash, attest the manifest and publish the version with all its file
 * rows at once. The listed blobs are then the account's published bytes.
 *
 * @throws RyeError REGISTRY_FORBIDDEN, REGISTRY_INVALID_REQUEST, REGISTRY_REF_INVALID,
 *   ITEM_ID_RESERVED (a bundle id or an item file under rye/),
 *   REGISTRY_BODY_TOO_LARGE, REGISTRY_QUOTA_EXCEEDED, REGISTRY_AUTHOR_KEY_UNKNOWN,
 *   REGISTRY_SIGNATURE_INVALID, BUNDLE_MANIFEST_INVALID, REGISTRY_BLOB_MISSING,
 *   REGISTRY_VERSION_CONFLICT
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
  const max = ctx.limits.manifestBytes;
  // A UTF-8 byte is at least a UTF-16 unit: a string this long is too large uncounted.
  const bytes = text.length > max ? text.length : Buffer.byteLength(text, 'utf8');
  if (bytes > max) throw tooLarge('the manifest', max);
  const label = `${namespace}/${bundleId} manifest`;
  const release = await ctx.quotas.claim(token, bytes + PROVENANCE_ALLOWANCE, label);
  try {
    const keys = await ctx.authorKeys.keysOf(token.accountId, token.username);
    const signAs = { itemType: 'tool', extension: '.yaml' } as const;
    // UNTRUSTED INPUT: authenticated before any parser reads it.
    const author = checkAuthorSignature({ text, ...signAs, label }, keys);
    await yieldToLoop();
    const manifest = parsePushedManifest(text, label);
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
    // The lane rule every reader applies (create, verify, execute, pull): a
    // registry does not store a bundle no client would accept.
    const outOfLane = manifestScopeProblem(manifest, bundleId);
    if (outOfLane !== undefined) throw invalidManifest(label, outOfLane);
    await yieldToLoop();

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
    ctx.quotas.settle(
      token,
      [...manifest.files.values()].map((entry) => entry.sha256),
    );
    return {
      status: published.status,
      document: await bundleAnswer(ctx, published.record, published.bytes),
    };
  } finally {
    release();
  }
}

/**
 * Every listed file with its stored size, looked up without reading the bytes
 * (each blob was hashed when it was uploaded, and is re-hashed when pulled).
 * The first missing one is named by path.
 * @throws RyeError REGISTRY_BLOB_MISSING
 */
async function storedFiles(
  ctx: ServerContext,
  files: ReadonlyMap<string, { readonly sha256: string }>,
): Promise<BundleFileRecord[]> {
  const entries = [...files].map(([path, entry]) => ({ path, sha256: entry.sha256 }));
  const sizes = await ctx.store.blobSizes([...new Set(entries.map((e) => e.sha256))]);
  return entries.map(({ path, sha256 }) => {
    const size = sizes.get(sha256);
    if (size === undefined) throw blobMissing(path, sha256);
    return { path, sha256, size };
  });
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
