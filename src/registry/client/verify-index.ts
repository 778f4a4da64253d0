/**
 * Verify a signed package index before any of it is used (TUF-style: a
 * signature by the pinned key, the package asked for, an expiry, a seq that
 * never goes back). Pure: the caller fetched the document, loaded the pinned
 * key and the seq seen before, and passes the clock.
 */
import { RyeError } from '../../errors/index.js';
import { parsePublicKey } from '../../integrity/index.js';
import {
  assertIndexSigned,
  parseIndex,
  type PackageIndex,
  type SignedIndexDocument,
} from '../package-index.js';
import type { IndexPackage } from './index-state.js';
import type { PinnedRegistryKey } from './verify-answer.js';

export interface IndexCheck {
  readonly asked: IndexPackage;
  readonly pinned: PinnedRegistryKey;
  readonly document: SignedIndexDocument;
  readonly now: Date;
  /** The highest seq verified before for this package under this key, or null. */
  readonly seenSeq: number | null;
  /** For messages: the registry URL, and where the seen seqs are kept. */
  readonly registry: string;
  readonly statePath: string;
}

/**
 * In this order: the signature over the exact text (before parsing), the
 * text's form, the registry key and package it names, its expiry, its seq.
 *
 * @throws RyeError REGISTRY_INDEX_SIGNATURE_INVALID (not signed by the pinned
 *   key: tampered, or another key), REGISTRY_INDEX_INVALID (malformed, another
 *   package or registry key), REGISTRY_INDEX_EXPIRED (past `expires_at`: a
 *   frozen mirror or a replay), REGISTRY_INDEX_ROLLBACK (a lower seq than one
 *   verified before).
 */
export function verifyIndex(check: IndexCheck): PackageIndex {
  const { asked, pinned, document, registry } = check;
  const name = `${asked.namespace}/${asked.itemId}`;
  const key = parsePublicKey(pinned.publicKeyPem).key;
  assertIndexSigned(key, document.index, document.signature);
  const index = parseIndex(document.index);

  const wrong = (field: string, expected: unknown, actual: unknown): never => {
    throw new RyeError(
      'REGISTRY_INDEX_INVALID',
      `Cannot accept the package index of ${name} from ${registry}: its ${field} is ${JSON.stringify(actual)}, not ${JSON.stringify(expected)}`,
      { field, expected, actual },
    );
  };
  const pairs: [string, unknown, unknown][] = [
    ['registry_fingerprint', pinned.fingerprint, index.registry_fingerprint],
    ['kind', asked.kind, index.kind],
    ['item_type', asked.itemType, index.item_type],
    ['namespace', asked.namespace, index.namespace],
    ['item_id', asked.itemId, index.item_id],
  ];
  for (const [field, expected, actual] of pairs)
    if (expected !== actual) wrong(field, expected, actual);

  const expires = Date.parse(index.expires_at);
  if (!(check.now.getTime() < expires)) {
    throw new RyeError(
      'REGISTRY_INDEX_EXPIRED',
      `Cannot accept the package index of ${name} from ${registry}: it expired at ${index.expires_at} (issued ${index.issued_at}, now ${check.now.toISOString()}); a frozen mirror or a replayed answer serves old indexes, so nothing was written. Retry later, and check the system clock`,
      { registry, expires_at: index.expires_at, issued_at: index.issued_at, seq: index.seq },
    );
  }
  if (check.seenSeq !== null && index.seq < check.seenSeq) {
    throw new RyeError(
      'REGISTRY_INDEX_ROLLBACK',
      `Cannot accept the package index of ${name} from ${registry}: it has seq ${index.seq}, but seq ${check.seenSeq} was verified here before; an older index could bring back a yanked version or hide a newer one, so nothing was written. Only if the registry's operator says its database was restored from a backup, remove the entry for ${registry} from ${check.statePath}`,
      { registry, seq: index.seq, seen: check.seenSeq, path: check.statePath },
    );
  }
  return index;
}
