import { RyeError } from '../errors/index.js';
import { bodyWithoutSignature, sha256Hex, verifyTextAsync } from '../integrity/index.js';
import {
  SPACE_NAMES,
  parseItemId,
  parseItemType,
  parseSpaceName,
  resolveItem,
} from '../items/index.js';
import { decodeText } from '../platform/index.js';
import { DEFAULT_LOAD_CACHE, type LoadCache, type LoadCacheEntry } from './load-cache.js';
import { METADATA_READERS } from './metadata-readers.js';
import { spacesOf, trustOf } from './open-catalog.js';
import { readOwnFile } from './own-file.js';
import type { CatalogScope, Deny, LoadedItem, Visible } from './types.js';

export interface LoadOptions extends CatalogScope {
  readonly item_type: string;
  readonly item_id: string;
  /** Resolve from this space only (MCP's `source`); default project → user → system. */
  readonly space?: string;
  /** The authority filter: false calls `deny` before anything is resolved or read. */
  readonly visible: Visible;
  /** Throws the caller's refusal (the thread layer: CAPABILITY_DENIED). */
  readonly deny: Deny;
  /** Accept a directive whose signature covers only its `<directive>` span. */
  readonly allowXmlOnly?: boolean;
  /** Verified-content cache (default: one per process). */
  readonly cache?: LoadCache;
}

/**
 * Load one item: resolve it as the executor does (project → user → system,
 * `rye/` ids from system only), read it once without following a symbolic
 * link, verify those bytes (cached by real path, extension and SHA-256 while
 * the signer stays trusted), then parse its metadata with the type's reader
 * and check that the signed name and category are the id's. Returns the
 * verified text with the signature line removed. Nothing that fails a check
 * is returned in any form.
 *
 * @throws whatever `deny` throws when `visible` refuses;
 *   RyeError ITEM_TYPE_INVALID, ITEM_ID_INVALID, SPACE_INVALID, ITEM_NOT_FOUND, ITEM_AMBIGUOUS,
 *   ITEM_ID_RESERVED, INTEGRITY_SYMLINK_ESCAPE, FILE_UNREADABLE, FILE_TOO_LARGE,
 *   FILE_BINARY, the verification code (INTEGRITY_UNSIGNED, INTEGRITY_HASH_MISMATCH,
 *   INTEGRITY_BAD_SIGNATURE, INTEGRITY_UNTRUSTED_KEY, TRUST_PROJECT_UNAPPROVED, …),
 *   INTEGRITY_PARTIAL_COVERAGE (an xml-only directive without `allowXmlOnly`),
 *   METADATA_PARSE_FAILED, PARSE_UNSAFE_CONTENT, LOAD_IDENTITY_MISMATCH
 */
export async function loadItem(options: LoadOptions): Promise<LoadedItem> {
  const itemType = parseItemType(options.item_type);
  const itemId = parseItemId(options.item_id);
  const only = options.space === undefined ? SPACE_NAMES : [parseSpaceName(options.space)];
  if (typeof options.visible !== 'function' || !options.visible(itemType, itemId)) {
    options.deny('load', itemType, itemId);
    // A JavaScript caller's deny that returns must not turn into an allow.
    throw new RyeError('INTERNAL_ERROR', `Cannot load ${itemType} ${itemId}: deny() returned`, {});
  }
  const spaces = spacesOf(options);
  const trusted = trustOf(options, spaces);
  trusted.catch(() => undefined);
  const item = await resolveItem(spaces, itemType, itemId, only);
  const file = readOwnFile(spaces, item);
  const text = decodeText(file.bytes, item.path);
  const { trust } = await trusted;
  const subject = { itemId, itemType };
  const cache = options.cache ?? DEFAULT_LOAD_CACHE;
  const key = `${file.realPath}\0${item.extension}\0${sha256Hex(file.bytes)}`;
  let verified: LoadCacheEntry | undefined = cache.lookup(key, trust, subject);
  if (verified === undefined) {
    const result = await verifyTextAsync(text, {
      itemType,
      extension: item.extension,
      trust,
      path: item.path,
      subject,
    });
    if (!result.ok || result.contentHash === null || result.fingerprint === null) {
      throw new RyeError(result.code ?? 'INTERNAL_ERROR', result.message, {
        itemType,
        itemId,
        space: item.space,
        path: item.path,
        verdict: result.verdict,
        expected: result.contentHash,
        actual: result.actualHash,
        fingerprint: result.fingerprint,
      });
    }
    verified = {
      contentHash: result.contentHash,
      fingerprint: result.fingerprint,
      publicKeyPem: trust.get(result.fingerprint)?.publicKeyPem ?? '',
      coverage: result.coverage,
    };
    cache.remember(key, verified);
  }
  if (verified.coverage === 'xml-only' && options.allowXmlOnly !== true) {
    throw new RyeError(
      'INTEGRITY_PARTIAL_COVERAGE',
      `Cannot load directive ${itemId}: its signature covers only the <directive> span, so the text around it reaches the model unauthenticated; re-sign it, or allow xml-only directives`,
      { itemType, itemId, space: item.space, path: item.path, coverage: 'xml-only' },
    );
  }
  const content = bodyWithoutSignature(text, itemType, item.extension);
  const reading = await METADATA_READERS[itemType](content, item.extension, item.path, itemId);
  if (reading.identity.length > 0) {
    const why = reading.identity.map((i) => i.message).join('; ');
    throw new RyeError(
      'LOAD_IDENTITY_MISMATCH',
      `Cannot load ${itemType} ${itemId}: ${item.path} is signed as another item (${why}); a signed file copied over another id is refused`,
      { itemType, itemId, space: item.space, path: item.path, issues: reading.identity },
    );
  }
  return {
    item_type: itemType,
    item_id: itemId,
    space: item.space,
    path: item.path,
    version: reading.summary.version,
    content,
    metadata: reading.metadata,
    verdict: 'ok',
    coverage: verified.coverage === 'xml-only' ? 'xml-only' : 'full',
  };
}
