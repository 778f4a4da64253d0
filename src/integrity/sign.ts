import type { KeyObject } from 'node:crypto';
import { RyeError } from '../errors/index.js';
import {
  findSignatureLine,
  formatCommentLine,
  locateCommentSignature,
  signatureLineStart,
} from './comment-signature.js';
import { normalizeNewlines, sha256Hex } from './hash.js';
import { signedTextFor } from './hashed-content.js';
import { readJsonSignature, writeJsonSignature } from './json-signature.js';
import { signBytes } from './keys.js';
import {
  DEFAULT_SIGNATURE_FORMATS,
  signatureFormatFor,
  type ItemType,
  type SignatureFormat,
  type SignatureFormatTable,
} from './signature-formats.js';
import {
  SIGNATURE_MARKER,
  encodeSignature,
  formatSignaturePayload,
  formatTimestamp,
  tryParseSignaturePayload,
  type SignatureFields,
} from './signature-line.js';

/** The private half used to sign, with its public fingerprint. */
export interface Signer {
  readonly privateKey: KeyObject;
  readonly fingerprint: string;
}

export interface SignTextOptions {
  readonly itemType: ItemType;
  readonly extension: string;
  readonly signer: Signer;
  readonly now?: Date;
  /** Unsigned provenance suffix, e.g. `rye-registry@alice` (registry attestation). */
  readonly provenance?: string | null;
  readonly path?: string | null;
  readonly formats?: SignatureFormatTable;
}

export interface SignedText {
  /** The signed file text, in the input's line-ending style (CRLF kept, else LF). */
  readonly text: string;
  readonly fields: SignatureFields;
  /** Old signature lines removed (the replaced one and any stale extra ones). */
  readonly removedSignatures: number;
  /**
   * True when `text` is the input unchanged, byte for byte: it already carried
   * this key's valid signature over this content, and nothing else to clean.
   */
  readonly unchanged: boolean;
}

/**
 * Sign an item's text: remove any existing signature line(s), hash the covered
 * content, and insert exactly one signature line (or `_signature` field).
 * Directives are always signed with full coverage.
 *
 * Idempotent: when the text already carries, in its signature position, a
 * signature by this key over this exact content (the same Ed25519 signature:
 * it is deterministic, RFC 8032) and no provenance is asked for or present,
 * the old timestamp is kept, so an unchanged item comes back byte for byte
 * (`unchanged: true`) and lockfiles and bundle manifests that pin its bytes
 * stay valid. The timestamp is not covered by the signature.
 *
 * @throws RyeError ITEM_UNSUPPORTED_EXTENSION, or the JSON parser's code for JSON items.
 */
export function signText(rawText: string, options: SignTextOptions): SignedText {
  return sealText(rawText, options, (hashedText, existing) => {
    const contentHash = sha256Hex(hashedText);
    const signature = encodeSignature(
      signBytes(options.signer.privateKey, Buffer.from(contentHash, 'latin1')),
    );
    const provenance = options.provenance ?? null;
    const same =
      existing !== undefined &&
      existing.contentHash === contentHash &&
      existing.fingerprint === options.signer.fingerprint &&
      existing.signature === signature &&
      existing.provenance === provenance;
    return {
      timestamp: same ? existing.timestamp : formatTimestamp(options.now ?? new Date()),
      contentHash,
      signature,
      fingerprint: options.signer.fingerprint,
      provenance,
    };
  });
}

export interface ResealTextOptions {
  readonly itemType: ItemType;
  readonly extension: string;
  /** The signature to put in place: it must cover exactly this content. */
  readonly fields: SignatureFields;
  readonly path?: string | null;
  readonly formats?: SignatureFormatTable;
}

/**
 * Put an existing signature back on content: remove the signature line(s)
 * and insert `fields` where `signText` would. Used to restore an author's
 * signature on content a registry re-signed; no key is involved, so the
 * result must still be verified against a trust set.
 *
 * @throws RyeError INTEGRITY_HASH_MISMATCH when `fields.contentHash` is not the
 * content's hash; ITEM_UNSUPPORTED_EXTENSION.
 */
export function resealText(rawText: string, options: ResealTextOptions): SignedText {
  return sealText(rawText, options, (hashedText) => {
    const actual = sha256Hex(hashedText);
    if (actual !== options.fields.contentHash) {
      throw new RyeError(
        'INTEGRITY_HASH_MISMATCH',
        `Cannot reseal ${options.path ?? `${options.itemType} text`}: the signature covers other content`,
        { path: options.path ?? null, expected: options.fields.contentHash, actual },
      );
    }
    return options.fields;
  });
}

/** Strip old signature lines, compute the covered text, and insert the sealed signature. */
function sealText(
  rawText: string,
  options: {
    readonly itemType: ItemType;
    readonly extension: string;
    readonly path?: string | null;
    readonly formats?: SignatureFormatTable;
  },
  seal: (hashedText: string, existing: SignatureFields | undefined) => SignatureFields,
): SignedText {
  const label = options.path ?? `${options.itemType} text`;
  const format = signatureFormatFor(
    options.itemType,
    options.extension,
    options.formats ?? DEFAULT_SIGNATURE_FORMATS,
  );
  if (format === undefined) {
    throw new RyeError(
      'ITEM_UNSUPPORTED_EXTENSION',
      `Cannot sign ${label}: no ${options.itemType} format for "${options.extension}" files`,
      { path: options.path ?? null, extension: options.extension },
    );
  }
  const crlf = rawText.includes('\r\n');
  const text = normalizeNewlines(rawText);

  if (format.kind === 'json-field') {
    const existing = readJsonSignature(text, format.field, label);
    const fields = seal(
      existing.hashedText,
      existing.payload === null ? undefined : tryParseSignaturePayload(existing.payload),
    );
    const signed = writeJsonSignature(text, format.field, formatSignaturePayload(fields), label);
    return result(rawText, crlf ? signed.replace(/\n/g, '\r\n') : signed, fields, {
      removed: existing.payload === null ? 0 : 1,
    });
  }

  const located = locateCommentSignature(text, format);
  const { body, removed } = stripSignatureLines(text, format);
  const fields = seal(
    signedTextFor(options.itemType, body),
    located.status === 'signed' ? located.fields : undefined,
  );
  const at = signatureLineStart(body, format);
  const signed =
    body.slice(0, at) +
    formatCommentLine(formatSignaturePayload(fields), format) +
    '\n' +
    body.slice(at);
  return result(rawText, crlf ? signed.replace(/\n/g, '\r\n') : signed, fields, { removed });
}

function result(
  rawText: string,
  text: string,
  fields: SignatureFields,
  counts: { removed: number },
): SignedText {
  return { text, fields, removedSignatures: counts.removed, unchanged: text === rawText };
}

type CommentFormat = Extract<SignatureFormat, { kind: 'comment' }>;

/**
 * Remove the line in the signature position if it is a signature line (even a
 * malformed one) and every other well-formed signature line: after signing
 * there is never more than one. A shebang without a newline gets one, so the
 * hashed text is the text that will be verified.
 */
function stripSignatureLines(
  text: string,
  format: CommentFormat,
): { body: string; removed: number } {
  let body = text;
  let removed = 0;
  if (format.placement === 'after-shebang' && body.startsWith('#!') && !body.includes('\n'))
    body += '\n';
  const start = signatureLineStart(body, format);
  if (body.startsWith(`${format.prefix} ${SIGNATURE_MARKER}`, start)) {
    const end = body.indexOf('\n', start);
    body = body.slice(0, start) + (end === -1 ? '' : body.slice(end + 1));
    removed += 1;
  }
  for (
    let line = findSignatureLine(body, format, -1);
    line !== null;
    line = findSignatureLine(body, format, -1)
  ) {
    const lines = body.split('\n');
    lines.splice(line - 1, 1);
    body = lines.join('\n');
    removed += 1;
  }
  return { body, removed };
}
