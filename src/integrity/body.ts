import { locateCommentSignature } from './comment-signature.js';
import { normalizeNewlines } from './hash.js';
import {
  DEFAULT_SIGNATURE_FORMATS,
  signatureFormatFor,
  type ItemType,
  type SignatureFormatTable,
} from './signature-formats.js';

/**
 * The item text with its signature line removed (newlines normalised), for
 * metadata extraction. JSON items are returned whole: their metadata reader
 * ignores the `_signature` field. Unsupported extensions return the text.
 */
export function bodyWithoutSignature(
  text: string,
  itemType: ItemType,
  extension: string,
  formats: SignatureFormatTable = DEFAULT_SIGNATURE_FORMATS,
): string {
  const normalized = normalizeNewlines(text);
  const format = signatureFormatFor(itemType, extension, formats);
  if (format === undefined || format.kind !== 'comment') return normalized;
  const located = locateCommentSignature(normalized, format);
  return located.status === 'unsigned' ? normalized : located.body;
}
