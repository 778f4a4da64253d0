import { RyeError } from '../../errors/index.js';
import {
  locateCommentSignature,
  normalizeNewlines,
  readJsonSignature,
  signatureFormatFor,
  tryParseSignaturePayload,
  verifyText,
  type ItemType,
  type SignatureFields,
  type TrustSet,
} from '../../integrity/index.js';

/** What is being pushed: the item type and extension select the signature format. */
export interface SignedContent {
  readonly text: string;
  readonly itemType: ItemType;
  readonly extension: string;
  /** Shown in messages, e.g. `alice/utils/greet.py`. */
  readonly label: string;
}

/**
 * Check the author's signature on pushed content against the keys registered
 * to the pushing account, and return its fields (the payload kept with the
 * version). The registry's attestation covers the whole file, so a directive
 * whose signature covers only its `<directive>` span is refused too.
 *
 * @throws RyeError REGISTRY_AUTHOR_KEY_UNKNOWN (signed by a key the account has
 *   not registered), REGISTRY_SIGNATURE_INVALID (unsigned, edited after signing,
 *   bad signature, malformed, partial coverage)
 */
export function checkAuthorSignature(content: SignedContent, trust: TrustSet): SignatureFields {
  const result = verifyText(content.text, {
    itemType: content.itemType,
    extension: content.extension,
    trust,
    path: content.label,
  });
  if (result.verdict === 'untrusted_key') {
    throw new RyeError(
      'REGISTRY_AUTHOR_KEY_UNKNOWN',
      `Cannot publish ${content.label}: it is signed by key ${result.fingerprint ?? '?'}, which is not registered to your account; run rye registry keys add`,
      { fingerprint: result.fingerprint },
    );
  }
  if (!result.ok) {
    throw new RyeError(
      'REGISTRY_SIGNATURE_INVALID',
      `Cannot publish ${content.label}: author signature verdict ${result.verdict} (${result.code ?? 'unknown'}): ${result.message}`,
      { verdict: result.verdict, cause: result.code },
    );
  }
  if (result.coverage === 'xml-only') {
    throw new RyeError(
      'REGISTRY_SIGNATURE_INVALID',
      `Cannot publish ${content.label}: its signature covers only the <directive> span; re-sign it with rye sign`,
      { verdict: 'partial_coverage' },
    );
  }
  const fields = signatureFieldsOf(content);
  if (fields === undefined || fields.contentHash !== result.contentHash) {
    throw new RyeError('REGISTRY_INTERNAL', `Cannot re-read the signature of ${content.label}`, {});
  }
  if (fields.provenance !== null) {
    // Provenance is the registry's to add: an author line that already claims
    // one would be served as a second attestation nobody made.
    throw new RyeError(
      'REGISTRY_SIGNATURE_INVALID',
      `Cannot publish ${content.label}: its signature carries the provenance suffix |${fields.provenance}; re-sign it with rye sign`,
      { verdict: 'provenance' },
    );
  }
  return fields;
}

/** The signature fields of a verified text (comment line or JSON field). */
function signatureFieldsOf(content: SignedContent): SignatureFields | undefined {
  const format = signatureFormatFor(content.itemType, content.extension);
  if (format === undefined) return undefined;
  const text = normalizeNewlines(content.text);
  if (format.kind === 'json-field') {
    const payload = readJsonSignature(text, format.field, content.label).payload;
    return payload === null ? undefined : tryParseSignaturePayload(payload);
  }
  const located = locateCommentSignature(text, format);
  return located.status === 'signed' ? located.fields : undefined;
}
