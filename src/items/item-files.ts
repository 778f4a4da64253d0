import { stat } from 'node:fs/promises';
import { RyeError } from '../errors/index.js';
import {
  bodyWithoutSignature,
  signText,
  verifyFile,
  type Signer,
  type SignatureFields,
  type TrustSet,
  type VerifyResult,
} from '../integrity/index.js';
import { readTextFile, writeFileAtomic } from '../platform/index.js';
import { extractMetadata } from './metadata/read-metadata.js';
import type { ItemMetadata } from './metadata/types.js';
import type { ResolvedItem } from './resolve.js';
import { assertValid } from './validate.js';

/** What signing one item did. */
export interface SignedItem {
  readonly item: ResolvedItem;
  readonly fields: SignatureFields;
  /** `entry` for validated items; `dependency` for helper files inside a tool's folder. */
  readonly role: 'entry' | 'dependency';
  readonly removedSignatures: number;
  /** True when the file already carried this key's signature over this content: nothing was written. */
  readonly unchanged: boolean;
}

/**
 * Read an item's metadata (signature line removed first).
 * @throws RyeError FILE_*, METADATA_PARSE_FAILED, PARSE_UNSAFE_CONTENT
 */
export async function readItemMetadata(item: ResolvedItem): Promise<ItemMetadata> {
  const text = await readTextFile(item.path);
  return extractMetadata(
    item.itemType,
    item.extension,
    bodyWithoutSignature(text, item.itemType, item.extension),
    item.path,
  );
}

/**
 * Validate, then sign one item file in place (atomic write, file mode kept).
 * Nothing is written when validation fails. System space is refused. An item
 * already signed by this key over its current content is left untouched, byte
 * for byte (see `signText`), so what pins its bytes stays valid.
 *
 * @throws RyeError SPACE_READ_ONLY, VALIDATION_FAILED, METADATA_PARSE_FAILED,
 *   PARSE_UNSAFE_CONTENT, FILE_*, ITEM_UNSUPPORTED_EXTENSION
 */
export async function signItemFile(
  item: ResolvedItem,
  signer: Signer,
  options: { now?: Date } = {},
): Promise<SignedItem> {
  if (item.space === 'system') {
    throw new RyeError('SPACE_READ_ONLY', `Cannot sign ${item.path}: system space is read-only`, {
      path: item.path,
    });
  }
  const text = await readTextFile(item.path);
  const metadata = await extractMetadata(
    item.itemType,
    item.extension,
    bodyWithoutSignature(text, item.itemType, item.extension),
    item.path,
  );
  assertValid({ itemType: item.itemType, itemId: item.itemId, metadata });
  const signed = signText(text, {
    itemType: item.itemType,
    extension: item.extension,
    signer,
    path: item.path,
    ...(options.now === undefined ? {} : { now: options.now }),
  });
  if (!signed.unchanged) {
    const mode = (await stat(item.path)).mode & 0o777;
    await writeFileAtomic(item.path, signed.text, { mode });
  }
  const role = metadata.kind === 'tool' && !metadata.isEntryPoint ? 'dependency' : 'entry';
  return {
    item,
    fields: signed.fields,
    role,
    removedSignatures: signed.removedSignatures,
    unchanged: signed.unchanged,
  };
}

/** Verify one resolved item against a trust set (a restricted key must be scoped for its id and type). */
export async function verifyItemFile(item: ResolvedItem, trust: TrustSet): Promise<VerifyResult> {
  return verifyFile(item.path, item.itemType, trust, {
    extension: item.extension,
    subject: { itemId: item.itemId, itemType: item.itemType },
  });
}
