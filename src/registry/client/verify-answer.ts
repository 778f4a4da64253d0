/**
 * Verify one registry answer (an item or a bundle version) before anything of
 * it is used. Pure: the caller fetched the document and loaded the pinned key.
 * The order is the one in the registry README ("Trust model"): attestation
 * signature, the statement naming exactly what was asked and what the answer
 * claims, the registry signature on the content, the author key matching the
 * statement, and the author's own signature restored on the content.
 */
import type { KeyObject } from 'node:crypto';
import { RyeError, isRyeError } from '../../errors/index.js';
import {
  parsePublicKey,
  resealText,
  trustSetOf,
  tryParseSignaturePayload,
  verifyText,
  type TrustSet,
} from '../../integrity/index.js';
import { ITEM_EXTENSIONS, type ItemType } from '../../items/index.js';
import {
  assertStatementSigned,
  parseStatement,
  type AttestationStatement,
} from '../attestation.js';
import type { BundleVersionDocument, ItemVersionDocument } from '../wire.js';

/** What the client asked the registry for. */
export interface AskedFor {
  readonly kind: 'item' | 'bundle';
  /** null for bundles. */
  readonly itemType: ItemType | null;
  readonly namespace: string;
  /** The item id, or the bundle id. */
  readonly itemId: string;
  /** null: whatever version the registry calls latest. */
  readonly version: string | null;
}

/** The registry key pinned for this registry URL. */
export interface PinnedRegistryKey {
  readonly fingerprint: string;
  readonly publicKeyPem: string;
}

export interface VerifiedAnswer {
  readonly statement: AttestationStatement;
  /** The content with the author's signature restored: the only text ever written. */
  readonly text: string;
  readonly author: {
    readonly fingerprint: string;
    readonly publicKeyPem: string;
    readonly key: KeyObject;
  };
}

/**
 * Check a registry answer against what was asked and the pinned key; return
 * the author-signed text and the author key.
 *
 * @throws RyeError REGISTRY_ATTESTATION_INVALID (unsigned by the pinned key,
 *   malformed, or naming another registry key), REGISTRY_ATTESTATION_MISMATCH
 *   (the statement, the question and the answer disagree on kind, type,
 *   namespace, id, version, extension or author), REGISTRY_CONTENT_INVALID (a
 *   signature, hash or extension on the content does not check out).
 */
export function verifyAnswer(
  asked: AskedFor,
  pinned: PinnedRegistryKey,
  answer: ItemVersionDocument | BundleVersionDocument,
): VerifiedAnswer {
  const claims = claimsOf(answer);
  const label = `${claims.namespace}/${claims.itemId}@${claims.version}`;
  const registry = parsePublicKey(pinned.publicKeyPem);
  assertStatementSigned(registry.key, answer.attestation.statement, answer.attestation.signature);
  const statement = parseStatement(answer.attestation.statement);

  const mismatch = (field: string, expected: unknown, actual: unknown): never => {
    throw new RyeError(
      'REGISTRY_ATTESTATION_MISMATCH',
      `Cannot accept ${label} from the registry: ${field} is ${show(actual)} where ${show(expected)} was expected`,
      { field, expected, actual },
    );
  };
  const pairs: [string, unknown, unknown][] = [
    ['kind', statement.kind, claims.kind],
    ['item_type', statement.item_type, claims.itemType],
    ['namespace', statement.namespace, claims.namespace],
    ['item_id', statement.item_id, claims.itemId],
    ['version', statement.version, claims.version],
    ['extension', statement.extension, claims.extension],
    ['author_fingerprint', statement.author_fingerprint, answer.author.fingerprint],
  ];
  for (const [field, signed, claimed] of pairs) {
    if (signed !== claimed) mismatch(`the answer's ${field}`, signed, claimed);
  }
  const wanted: [string, unknown, unknown][] = [
    ['kind', asked.kind, statement.kind],
    ['item_type', asked.itemType, statement.item_type],
    ['namespace', asked.namespace, statement.namespace],
    ['item_id', asked.itemId, statement.item_id],
  ];
  if (asked.version !== null) wanted.push(['version', asked.version, statement.version]);
  for (const [field, want, signed] of wanted) {
    if (want !== signed) mismatch(`the attested ${field}`, want, signed);
  }
  if (statement.registry_fingerprint !== pinned.fingerprint) {
    throw new RyeError(
      'REGISTRY_ATTESTATION_INVALID',
      `Cannot accept ${label}: the attestation names registry key ${statement.registry_fingerprint}, not the pinned ${pinned.fingerprint}`,
      { expected: pinned.fingerprint, actual: statement.registry_fingerprint },
    );
  }

  const invalid = (why: string, details: Record<string, unknown> = {}): never => {
    throw new RyeError('REGISTRY_CONTENT_INVALID', `Cannot accept ${label}: ${why}`, details);
  };
  const itemType: ItemType = claims.itemType ?? 'tool';
  const extension = claims.extension ?? '.yaml';
  if (!ITEM_EXTENSIONS[itemType].includes(extension))
    invalid(`"${extension}" is not a ${itemType} extension`);

  const registryTrust = trustOf(registry, 'registry');
  const byRegistry = verifyText(claims.content, { itemType, extension, trust: registryTrust });
  if (!byRegistry.ok || byRegistry.coverage === 'xml-only')
    invalid(`the registry signature on the content does not verify (${byRegistry.message})`, {
      code: byRegistry.code,
    });
  if (byRegistry.provenance !== `rye-registry@${statement.namespace}`)
    invalid(`the registry signature carries provenance ${show(byRegistry.provenance)}`);
  if (byRegistry.contentHash !== statement.content_hash)
    invalid('the registry signature covers another content hash than the attestation', {
      expected: statement.content_hash,
      actual: byRegistry.contentHash,
    });

  let authorKey;
  try {
    authorKey = parsePublicKey(answer.author.public_key);
  } catch (error) {
    if (!isRyeError(error)) throw error;
    return invalid(`the author key is not an Ed25519 public key (${error.message})`);
  }
  if (authorKey.fingerprint !== statement.author_fingerprint)
    mismatch(
      'the served author key fingerprint',
      statement.author_fingerprint,
      authorKey.fingerprint,
    );

  const fields = tryParseSignaturePayload(answer.author.signature);
  if (fields === undefined) return invalid('the author signature is not a rye:signed payload');
  if (fields.fingerprint !== statement.author_fingerprint || fields.provenance !== null)
    invalid('the author signature names another key or carries a provenance suffix');
  if (fields.contentHash !== statement.content_hash)
    invalid('the author signature covers another content hash than the attestation', {
      expected: statement.content_hash,
      actual: fields.contentHash,
    });
  let text: string;
  try {
    text = resealText(claims.content, { itemType, extension, fields }).text;
  } catch (error) {
    if (!isRyeError(error)) throw error;
    return invalid(`the author signature cannot be restored (${error.message})`);
  }
  const byAuthor = verifyText(text, { itemType, extension, trust: trustOf(authorKey, 'author') });
  if (!byAuthor.ok || byAuthor.coverage === 'xml-only')
    invalid(`the author signature does not verify (${byAuthor.message})`, { code: byAuthor.code });
  return {
    statement,
    text,
    author: {
      fingerprint: authorKey.fingerprint,
      publicKeyPem: authorKey.publicKeyPem,
      key: authorKey.key,
    },
  };
}

interface Claims {
  readonly kind: 'item' | 'bundle';
  readonly itemType: ItemType | null;
  readonly namespace: string;
  readonly itemId: string;
  readonly version: string;
  readonly extension: string | null;
  readonly content: string;
}

function claimsOf(answer: ItemVersionDocument | BundleVersionDocument): Claims {
  if (answer.kind === 'item') {
    return {
      kind: 'item',
      itemType: answer.item_type,
      namespace: answer.namespace,
      itemId: answer.item_id,
      version: answer.version,
      extension: answer.extension,
      content: answer.content,
    };
  }
  return {
    kind: 'bundle',
    itemType: null,
    namespace: answer.namespace,
    itemId: answer.bundle_id,
    version: answer.version,
    extension: null,
    content: answer.manifest,
  };
}

function trustOf(
  info: { fingerprint: string; publicKeyPem: string; key: KeyObject },
  owner: string,
): TrustSet {
  return trustSetOf([{ ...info, owner, attestation: '', source: null }]);
}

function show(value: unknown): string {
  return JSON.stringify(value)?.slice(0, 120) ?? 'undefined';
}
