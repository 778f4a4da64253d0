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
} from '../../integrity/index.js';
import type { AccountKeys } from './author-keys.js';

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
 *   not registered, or removed; the message says which keys are registered),
 *   REGISTRY_SIGNATURE_INVALID (unsigned, edited after signing, bad signature,
 *   malformed, partial coverage)
 */
export function checkAuthorSignature(content: SignedContent, keys: AccountKeys): SignatureFields {
  const result = verifyText(content.text, {
    itemType: content.itemType,
    extension: content.extension,
    trust: keys.trust,
    path: content.label,
  });
  if (result.verdict === 'untrusted_key') throw unknownKey(content.label, result.fingerprint, keys);
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

/**
 * The refusal for content signed by a key the account cannot push with. Three
 * cases read differently: a key it removed, another key while it has keys
 * registered (re-sign, or register that key), and no key registered at all.
 */
function unknownKey(label: string, fingerprint: string | null, keys: AccountKeys): RyeError {
  const key = fingerprint ?? '?';
  const registered = [...keys.trust.keys()];
  const details = { fingerprint, registered };
  if (fingerprint !== null && keys.removed.includes(fingerprint)) {
    return new RyeError(
      'REGISTRY_AUTHOR_KEY_UNKNOWN',
      `Cannot publish ${label}: it is signed by key ${key}, which you removed from your account; re-sign it with a registered key${registered.length === 0 ? '' : ` (${registered.join(', ')})`}, or register ${key} again with \`rye registry keys add\``,
      details,
    );
  }
  if (registered.length > 0) {
    return new RyeError(
      'REGISTRY_AUTHOR_KEY_UNKNOWN',
      `Cannot publish ${label}: it is signed by key ${key}, not by a key registered to your account (${registered.join(', ')}); re-sign it with your key (\`rye sign\`), or register ${key} from the key pair that holds it with \`rye registry keys add\``,
      details,
    );
  }
  return new RyeError(
    'REGISTRY_AUTHOR_KEY_UNKNOWN',
    `Cannot publish ${label}: it is signed by key ${key}, and your account has no registered key; run \`rye registry keys add\``,
    details,
  );
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
