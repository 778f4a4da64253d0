import type { BundleVersionDocument, ItemVersionDocument } from '../wire.js';
import type { ServerContext } from './context.js';
import { bundleDocument, itemDocument } from './documents.js';
import type { VersionRecord } from './store/index.js';
import { readVersionBlob } from './versions.js';

/**
 * The document of a stored item version: its registry-signed bytes (re-hashed
 * by the store, unless the caller holds them) and its author's registered key.
 * @throws RyeError REGISTRY_BLOB_CORRUPT
 */
export async function itemAnswer(
  ctx: ServerContext,
  record: VersionRecord,
  held: Buffer | null = null,
): Promise<ItemVersionDocument> {
  const bytes = held ?? (await readVersionBlob(ctx.store, record));
  const pem = await ctx.authorKeys.pemOf(record.namespace, record.authorFingerprint);
  return itemDocument(record, bytes.toString('utf8'), pem);
}

/**
 * The document of a stored bundle version (the registry-signed manifest, read
 * unless the caller holds it).
 * @throws RyeError REGISTRY_BLOB_CORRUPT
 */
export async function bundleAnswer(
  ctx: ServerContext,
  record: VersionRecord,
  held: Buffer | null = null,
): Promise<BundleVersionDocument> {
  const bytes = held ?? (await readVersionBlob(ctx.store, record));
  const pem = await ctx.authorKeys.pemOf(record.namespace, record.authorFingerprint);
  return bundleDocument(record, bytes.toString('utf8'), pem);
}
