import { locateCommentSignature } from './comment-signature.js';
import { normalizeNewlines, sha256Hex } from './hash.js';
import { toolHashedText } from './hashed-content.js';
import { readJsonSignature } from './json-signature.js';
import {
  DEFAULT_SIGNATURE_FORMATS,
  signatureFormatFor,
  type ItemType,
  type SignatureFormatTable,
} from './signature-formats.js';

/**
 * The content hash of an item as it is now — the hash a fresh signature would
 * carry (full coverage for directives) — whether or not it is signed. This is
 * what lockfiles pin as `integrity`. Returns null for an unsupported extension
 * or a JSON file that does not parse.
 */
export function computeContentHash(
  text: string,
  itemType: ItemType,
  extension: string,
  formats: SignatureFormatTable = DEFAULT_SIGNATURE_FORMATS,
): string | null {
  const format = signatureFormatFor(itemType, extension, formats);
  if (format === undefined) return null;
  const normalized = normalizeNewlines(text);
  if (format.kind === 'json-field') {
    try {
      return sha256Hex(readJsonSignature(normalized, format.field, 'content').hashedText);
    } catch {
      return null;
    }
  }
  const located = locateCommentSignature(normalized, format);
  const body = located.status === 'unsigned' ? normalized : located.body;
  return sha256Hex(itemType === 'tool' ? toolHashedText(body) : body);
}
