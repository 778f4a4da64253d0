import { bodyWithoutSignature } from '../../integrity/index.js';
import {
  ITEM_EXTENSIONS,
  ITEM_TYPES,
  assertNotReserved,
  assertValid,
  extractMetadata,
  type ItemMetadata,
} from '../../items/index.js';
import { assertVersionAgrees, declaredVersionOf } from '../declared-version.js';
import { assertRegistryId, assertVersion } from '../names.js';
import type { ItemVersionDocument } from '../wire.js';
import { assertOwner } from './auth.js';
import { checkAuthorSignature } from './author-signature.js';
import { MAX_NAME_LENGTH, booleanField, choiceOf, stringField, type Fields } from './body.js';
import type { ServerContext } from './context.js';
import { itemAnswer } from './answers.js';
import { invalidRequest, tooLarge } from './errors.js';
import { publishVersion } from './publish.js';
import { PROVENANCE_ALLOWANCE } from './quota.js';
import { yieldToLoop } from './yield.js';
import type { TokenRecord } from './store/index.js';

export const ITEM_PUSH_FIELDS = [
  'item_type',
  'namespace',
  'item_id',
  'version',
  'extension',
  'content',
  /** Optional: publish although the item declares another version. */
  'allow_version_mismatch',
] as const;

/**
 * `POST /v1/items`: check the item, cheapest refusal first (owner, names,
 * size, the account's quota, the author signature over the raw text, and only
 * then the metadata parse), attest it, store the registry-signed bytes and
 * publish. Replaying a published version with the same content answers the
 * stored version (200) and changes nothing. The request thread is yielded
 * between the costly steps, so other requests are answered meanwhile.
 *
 * @throws RyeError REGISTRY_FORBIDDEN, REGISTRY_INVALID_REQUEST, REGISTRY_REF_INVALID,
 *   ITEM_ID_RESERVED (ids under rye/),
 *   REGISTRY_BODY_TOO_LARGE, REGISTRY_QUOTA_EXCEEDED, REGISTRY_AUTHOR_KEY_UNKNOWN,
 *   REGISTRY_SIGNATURE_INVALID, VALIDATION_FAILED, METADATA_PARSE_FAILED,
 *   PARSE_UNSAFE_CONTENT, REGISTRY_VERSION_MISMATCH (the item declares another
 *   version and the push did not say `allow_version_mismatch: true`),
 *   REGISTRY_VERSION_CONFLICT
 */
export async function pushItem(
  ctx: ServerContext,
  token: TokenRecord,
  body: Fields,
): Promise<{ status: 200 | 201; document: ItemVersionDocument }> {
  const itemType = choiceOf(body['item_type'], 'item_type', ITEM_TYPES);
  const namespace = stringField(body, 'namespace', MAX_NAME_LENGTH);
  assertOwner(token, namespace);
  const itemId = stringField(body, 'item_id', MAX_NAME_LENGTH);
  assertRegistryId(itemId);
  assertNotReserved(itemId, 'publish');
  const version = stringField(body, 'version', 256);
  assertVersion(version);
  const extension = stringField(body, 'extension', 16);
  if (!ITEM_EXTENSIONS[itemType].includes(extension)) {
    throw invalidRequest(
      `Cannot publish a ${itemType} with extension "${extension}": use one of ${ITEM_EXTENSIONS[itemType].join(' ')}`,
    );
  }
  const content = stringField(body, 'content', Number.MAX_SAFE_INTEGER);
  // A UTF-8 byte is at least a UTF-16 unit: a string this long is too large uncounted.
  const bytes = content.length > ctx.limits.itemBytes ? content.length : byteLength(content);
  if (bytes > ctx.limits.itemBytes) throw tooLarge('the item content', ctx.limits.itemBytes);
  const label = `${namespace}/${itemId}${extension}`;
  // The stored file is the content plus the registry's provenance suffix.
  const release = await ctx.quotas.claim(token, bytes + PROVENANCE_ALLOWANCE, label);
  try {
    const keys = await ctx.authorKeys.keysOf(token.accountId, token.username);
    // UNTRUSTED INPUT: authenticated before any parser reads it.
    const author = checkAuthorSignature({ text: content, itemType, extension, label }, keys);
    await yieldToLoop();
    const unsigned = bodyWithoutSignature(content, itemType, extension);
    const metadata = await extractMetadata(itemType, extension, unsigned, label);
    assertValid({ itemType, itemId, metadata });
    const allowMismatch =
      body['allow_version_mismatch'] !== undefined && booleanField(body, 'allow_version_mismatch');
    assertVersionAgrees(label, declaredVersionOf(metadata), version, allowMismatch);
    await yieldToLoop();

    const published = await publishVersion(ctx, {
      key: { kind: 'item', itemType, namespace, itemId },
      version,
      extension,
      text: content,
      signAs: { itemType, extension },
      author,
      description: descriptionOf(metadata),
    });
    return {
      status: published.status,
      document: await itemAnswer(ctx, published.record, published.bytes),
    };
  } finally {
    release();
  }
}

function byteLength(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

function descriptionOf(metadata: ItemMetadata): string | null {
  const value =
    metadata.kind === 'directive'
      ? metadata.description
      : metadata.kind === 'tool'
        ? metadata.fields.description
        : (metadata.fields['description'] ?? metadata.fields['title']);
  return typeof value === 'string' && value.trim() !== '' ? value.trim().slice(0, 1000) : null;
}
