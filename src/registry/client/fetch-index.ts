/**
 * The client's side of the signed package index: fetch it, verify it
 * (verify-index.ts), remember its seq, and hold registry answers to it. A pull
 * never asks the registry for "latest": it asks for the exact version the
 * verified index names, and checks the attested content hash against it.
 */
import { RyeError } from '../../errors/index.js';
import {
  MAX_INDEX_BYTES,
  type IndexEntry,
  type PackageIndex,
  type SignedIndexDocument,
} from '../package-index.js';
import type { AttestationStatement } from '../attestation.js';
import { readSeenSeq, recordSeenSeq, seenIndexesPath, type IndexPackage } from './index-state.js';
import type { RegistrySession } from './session.js';
import { Shape } from './shape.js';
import { verifyIndex } from './verify-index.js';
import type { PinnedRegistryKey } from './verify-answer.js';

/** The index endpoint's path. */
export const INDEX_PATH = '/v1/index';

/**
 * Fetch the package's signed index, verify it against the pinned key, the
 * clock and the seq seen before, and record its seq. Nothing is recorded
 * unless every check passed.
 *
 * @throws RyeError the transport's and the registry's codes (REGISTRY_NOT_FOUND
 *   for a package never published), REGISTRY_BAD_RESPONSE, every refusal of
 *   verifyIndex, FILE_UNREADABLE, FILE_WRITE_FAILED
 */
export async function fetchVerifiedIndex(
  session: RegistrySession,
  pinned: PinnedRegistryKey,
  pkg: IndexPackage,
  now: () => Date = () => new Date(),
): Promise<PackageIndex> {
  const { url } = session.endpoint;
  const { value } = await session.http.json({
    method: 'GET',
    path: INDEX_PATH,
    query: {
      kind: pkg.kind,
      item_type: pkg.itemType ?? undefined,
      namespace: pkg.namespace,
      item_id: pkg.itemId,
    },
    // JSON escaping at most doubles the text (it is ASCII), plus the signature.
    maxBytes: 2 * MAX_INDEX_BYTES + 4096,
  });
  const document = parseSignedIndexDocument(value, url);
  const seenSeq = await readSeenSeq(session.spaces, url, pinned.fingerprint, pkg);
  const index = verifyIndex({
    asked: pkg,
    pinned,
    document,
    now: now(),
    seenSeq,
    registry: url,
    statePath: seenIndexesPath(session.spaces),
  });
  await recordSeenSeq(session.spaces, url, pinned.fingerprint, pkg, index.seq);
  return index;
}

/** @throws RyeError REGISTRY_BAD_RESPONSE */
export function parseSignedIndexDocument(value: unknown, url: string): SignedIndexDocument {
  const s = new Shape(url, 'the package index document');
  const o = s.object(value, '(top level)');
  return {
    index: s.string(o, 'index', '', () => true, MAX_INDEX_BYTES),
    signature: s.string(o, 'signature', '', () => true, 256),
  };
}

/**
 * The index entry to pull: the exact version asked for (yanked or not), or
 * the index's `latest`.
 *
 * @throws RyeError REGISTRY_NOT_FOUND when the signed index lists no such
 *   version, or has no version that is not yanked
 */
export function chooseVersion(
  index: PackageIndex,
  version: string | null,
  registry: string,
): IndexEntry {
  const name = `${index.namespace}/${index.item_id}`;
  const wanted = version ?? index.latest;
  if (wanted === null) {
    throw new RyeError(
      'REGISTRY_NOT_FOUND',
      `Cannot find ${name} on ${registry}: its signed index lists no version that is not yanked`,
      { registry, seq: index.seq },
    );
  }
  const entry = index.versions.find((v) => v.version === wanted);
  if (entry === undefined) {
    throw new RyeError(
      'REGISTRY_NOT_FOUND',
      `Cannot find ${name}@${wanted} on ${registry}: its signed index (seq ${index.seq}) does not list that version`,
      { registry, seq: index.seq, version: wanted },
    );
  }
  return entry;
}

/**
 * The attested version must be the index entry's, with the content hash the
 * index states.
 *
 * @throws RyeError REGISTRY_INDEX_MISMATCH
 */
export function assertMatchesIndex(
  entry: IndexEntry,
  statement: AttestationStatement,
  registry: string,
): void {
  if (statement.version === entry.version && statement.content_hash === entry.content_hash) return;
  throw new RyeError(
    'REGISTRY_INDEX_MISMATCH',
    `Cannot accept ${statement.namespace}/${statement.item_id}@${statement.version} from ${registry}: its signed index lists ${entry.version} with content hash ${entry.content_hash}, the attestation ${statement.version} with ${statement.content_hash}`,
    {
      registry,
      expected: { version: entry.version, content_hash: entry.content_hash },
      actual: { version: statement.version, content_hash: statement.content_hash },
    },
  );
}

/** What a result reports of the index it was checked against. */
export function indexSummary(index: PackageIndex): Record<string, unknown> {
  return {
    seq: index.seq,
    issued_at: index.issued_at,
    expires_at: index.expires_at,
    latest: index.latest,
  };
}
