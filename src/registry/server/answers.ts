import type { BundleVersionDocument, ItemVersionDocument } from '../wire.js';
import type { ServerContext } from './context.js';
import { bundleDocument, itemDocument } from './documents.js';
import type { VersionRecord } from './store/index.js';
import { readVersionBlob } from './versions.js';

/**
 * The document of a stored item version: its registry-signed bytes (re-hashed
 * by the store) and its author's registered key.
 * @throws RyeError REGISTRY_BLOB_CORRUPT
 */
export async function itemAnswer(
  ctx: ServerContext,
  record: VersionRecord,
): Promise<ItemVersionDocument> {
  const bytes = await readVersionBlob(ctx.store, record);
  const pem = await ctx.authorKeys.pemOf(record.namespace, record.authorFingerprint);
  return itemDocument(record, bytes.toString('utf8'), pem);
}

/**
 * The document of a stored bundle version (the registry-signed manifest).
 * @throws RyeError REGISTRY_BLOB_CORRUPT
 */
export async function bundleAnswer(
  ctx: ServerContext,
  record: VersionRecord,
): Promise<BundleVersionDocument> {
  const bytes = await readVersionBlob(ctx.store, record);
  const pem = await ctx.authorKeys.pemOf(record.namespace, record.authorFingerprint);
  return bundleDocument(record, bytes.toString('utf8'), pem);
}
