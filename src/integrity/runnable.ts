import { locateCommentSignature } from './comment-signature.js';
import { normalizeNewlines } from './hash.js';
import { toolHashedText } from './hashed-content.js';
import {
  DEFAULT_SIGNATURE_FORMATS,
  signatureFormatFor,
  type SignatureFormatTable,
} from './signature-formats.js';

// As the verifier decodes (platform decodeText): strict, a BOM kept as text.
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * The bytes an interpreter should be given for a verified tool file: exactly
 * what its signature covers, in a form every interpreter reads the way the
 * verifier did. Pure and deterministic in (raw bytes, extension), so a
 * snapshot keyed by the raw hashes is content-addressed.
 *
 * - A comment-signed text file: newlines normalised as they were hashed (CRLF
 *   and a lone CR become LF: `/bin/sh` would otherwise see one line where the
 *   verifier saw two), and the two unhashed lines, the signature line and a
 *   leading `#!` line, replaced by empty lines, so nothing unsigned survives
 *   (a coding cookie in a shebang, say) and line numbers stay the same.
 * - Anything else (JSON, whose raw parse equals the canonical form hashed
 *   because duplicate keys are refused; files authenticated by a raw SHA-256
 *   in a manifest or lockfile; non-UTF-8 bytes): the raw bytes.
 */
export function runnableBytes(
  raw: Uint8Array,
  extension: string,
  formats: SignatureFormatTable = DEFAULT_SIGNATURE_FORMATS,
): Uint8Array {
  const format = signatureFormatFor('tool', extension, formats);
  if (format === undefined || format.kind !== 'comment' || raw.includes(0)) return raw;
  let text: string;
  try {
    text = strictUtf8.decode(raw);
  } catch {
    return raw;
  }
  const located = locateCommentSignature(normalizeNewlines(text), format);
  if (located.status !== 'signed') return raw;
  const hashed = toolHashedText(located.body);
  const removed = hashed === located.body ? 1 : 2;
  return Buffer.from('\n'.repeat(removed) + hashed, 'utf8');
}
