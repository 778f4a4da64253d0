import {
  formatSignaturePayload,
  type ItemType,
  type SignatureFields,
} from '../../integrity/index.js';
import { attest } from './attest.js';
import type { ServerContext } from './context.js';
import type { BundleFileRecord, PackageKey, VersionRecord } from './store/index.js';
import { assertSameContent } from './versions.js';

/** An author-verified version about to be published. */
export interface Publication {
  readonly key: PackageKey;
  readonly version: string;
  /** Items: the file extension; bundles: null. */
  readonly extension: string | null;
  /** The author-signed text, and the format its signature line takes. */
  readonly text: string;
  readonly signAs: { readonly itemType: ItemType; readonly extension: string };
  readonly author: SignatureFields;
  readonly description: string | null;
  /** Bundles: the stored files, looked up only when the version is new. */
  readonly files?: () => Promise<BundleFileRecord[]>;
}

export interface Published {
  /** 201 created; 200 the same content was published before (a replay). */
  readonly status: 200 | 201;
  readonly record: VersionRecord;
  /** The registry-signed bytes when this push created the version, else null. */
  readonly bytes: Buffer | null;
}

/**
 * Publish one version: a replay of published content answers the stored
 * version and changes nothing; new content is attested, its registry-signed
 * bytes stored, and the version row published in one store transaction.
 *
 * @throws RyeError REGISTRY_VERSION_CONFLICT, REGISTRY_BLOB_MISSING, and the
 *   codes of `files()`.
 */
export async function publishVersion(ctx: ServerContext, p: Publication): Promise<Published> {
  const existing = await ctx.store.getVersion(p.key, p.version);
  if (existing !== null) {
    assertSameContent(existing, p.author.contentHash);
    return { status: 200, record: existing, bytes: null };
  }
  const files = p.files === undefined ? [] : await p.files();
  const attested = attest(ctx.key, {
    ...p.key,
    version: p.version,
    extension: p.extension,
    text: p.text,
    signAs: p.signAs,
    author: p.author,
    now: ctx.now(),
  });
  await ctx.store.putBlob(attested.blobSha256, attested.bytes);
  const record: VersionRecord = {
    ...p.key,
    version: p.version,
    extension: p.extension,
    contentHash: p.author.contentHash,
    blobSha256: attested.blobSha256,
    size: attested.bytes.length,
    authorFingerprint: p.author.fingerprint,
    authorSignature: formatSignaturePayload(p.author),
    statement: attested.statement,
    statementSignature: attested.statementSignature,
    description: p.description,
    publishedAt: attested.attestedAt,
    yanked: false,
    files,
  };
  // A concurrent push of the same version may have won: the store says which.
  const outcome = await ctx.store.publish(record);
  if (outcome.status === 'exists') return { status: 200, record: outcome.record, bytes: null };
  return { status: 201, record, bytes: attested.bytes };
}
