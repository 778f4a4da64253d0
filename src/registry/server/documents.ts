import type { BundleVersionDocument, ItemVersionDocument } from '../wire.js';
import type { VersionRecord } from './store/index.js';

/** The wire document of a published item version. Pure. */
export function itemDocument(
  record: VersionRecord,
  content: string,
  authorPem: string,
): ItemVersionDocument {
  return {
    kind: 'item',
    // Item rows always carry a type and an extension (the store's invariant).
    item_type: record.itemType as ItemVersionDocument['item_type'],
    namespace: record.namespace,
    item_id: record.itemId,
    version: record.version,
    extension: record.extension as string,
    content,
    author: author(record, authorPem),
    attestation: { statement: record.statement, signature: record.statementSignature },
    yanked: record.yanked,
    published_at: record.publishedAt,
  };
}

/** The wire document of a published bundle version. Pure. */
export function bundleDocument(
  record: VersionRecord,
  manifest: string,
  authorPem: string,
): BundleVersionDocument {
  return {
    kind: 'bundle',
    namespace: record.namespace,
    bundle_id: record.itemId,
    version: record.version,
    manifest,
    author: author(record, authorPem),
    attestation: { statement: record.statement, signature: record.statementSignature },
    files: record.files.map((f) => ({ path: f.path, sha256: f.sha256, size: f.size })),
    yanked: record.yanked,
    published_at: record.publishedAt,
  };
}

function author(record: VersionRecord, authorPem: string): ItemVersionDocument['author'] {
  return {
    fingerprint: record.authorFingerprint,
    public_key: authorPem,
    signature: record.authorSignature,
  };
}
