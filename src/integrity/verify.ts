import type { KeyObject } from 'node:crypto';
import { join } from 'node:path';
import { isRyeError, type ErrorCode } from '../errors/index.js';
import { locateCommentSignature } from './comment-signature.js';
import { hexDigestsEqual, normalizeNewlines, sha256Hex } from './hash.js';
import { directiveSpan, toolHashedText, type Coverage } from './hashed-content.js';
import { readJsonSignature } from './json-signature.js';
import { describeScopes, scopesCover, type VerifySubject } from './key-scope.js';
import { pendingKeyFor } from './pending-keys.js';
import { verifyBytes, verifyBytesAsync } from './keys.js';
import {
  DEFAULT_SIGNATURE_FORMATS,
  signatureFormatFor,
  type ItemType,
  type SignatureFormatTable,
} from './signature-formats.js';
import { tryParseSignaturePayload, type SignatureFields } from './signature-line.js';
import type { TrustSet } from './trust.js';
import { emptyResult, type Verdict, type VerifyResult } from './verdict.js';

export interface VerifyTextOptions {
  readonly itemType: ItemType;
  /** File extension with its dot, e.g. `.py`; selects the signature format. */
  readonly extension: string;
  readonly trust: TrustSet;
  /** Shown in messages and results. */
  readonly path?: string | null;
  readonly formats?: SignatureFormatTable;
  /**
   * The item the bytes are trusted as (id and type), checked against the
   * signing key's scope. A dependency file of a multi-file tool is checked as
   * the tool, a runtime library file as its runtime, a bundle manifest as the
   * bundle. Without it only unrestricted keys count.
   */
  readonly subject?: VerifySubject | null;
}

interface Candidate {
  readonly coverage: Coverage | null;
  readonly text: string;
}

/**
 * Verify one item's text against a trust set. Pure: no I/O, no global state
 * but the parsed-key cache. Never throws for bad content — every failure is a
 * verdict with a code (INTEGRITY_UNSIGNED, INTEGRITY_SIGNATURE_MISPLACED,
 * INTEGRITY_MALFORMED_SIGNATURE, INTEGRITY_DUPLICATE_SIGNATURE,
 * INTEGRITY_HASH_MISMATCH, INTEGRITY_UNTRUSTED_KEY (TRUST_PROJECT_UNAPPROVED when the
 * key is in a project trust store the user has not approved), INTEGRITY_BAD_SIGNATURE,
 * ITEM_UNSUPPORTED_EXTENSION, or the JSON parser's code). A trusted key whose
 * scope does not cover `options.subject` is INTEGRITY_UNTRUSTED_KEY for it.
 *
 * Order of checks: signature line → content hash → trusted key (and its
 * scope) → Ed25519.
 */
export function verifyText(rawText: string, options: VerifyTextOptions): VerifyResult {
  const plan = planVerification(rawText, options);
  if (!('pending' in plan)) return plan;
  return verifyBytes(plan.key, plan.message, plan.signature) ? plan.ok : plan.bad;
}

/**
 * {@link verifyText} with the Ed25519 check on libuv's thread pool: verifying
 * many items at once (Promise.all) uses every core. Same verdicts, same codes.
 */
export async function verifyTextAsync(
  rawText: string,
  options: VerifyTextOptions,
): Promise<VerifyResult> {
  const plan = planVerification(rawText, options);
  if (!('pending' in plan)) return plan;
  return (await verifyBytesAsync(plan.key, plan.message, plan.signature)) ? plan.ok : plan.bad;
}

/** Everything checked but the Ed25519 signature itself, and the two possible outcomes. */
interface PendingCheck {
  readonly pending: true;
  readonly key: KeyObject;
  readonly message: Buffer;
  readonly signature: Buffer;
  readonly ok: VerifyResult;
  readonly bad: VerifyResult;
}

function planVerification(
  rawText: string,
  options: VerifyTextOptions,
): VerifyResult | PendingCheck {
  const base = emptyResult(options.itemType, options.path ?? null);
  const label = options.path ?? `${options.itemType} text`;
  const format = signatureFormatFor(
    options.itemType,
    options.extension,
    options.formats ?? DEFAULT_SIGNATURE_FORMATS,
  );
  if (format === undefined) {
    return fail(
      base,
      'unreadable',
      'ITEM_UNSUPPORTED_EXTENSION',
      `Cannot verify ${label}: no ${options.itemType} format for "${options.extension}" files`,
    );
  }
  const text = normalizeNewlines(rawText);

  if (format.kind === 'json-field') {
    let json;
    try {
      json = readJsonSignature(text, format.field, label);
    } catch (error) {
      // Defensive: readJsonSignature throws only RyeErrors; a bug must not become a verdict.
      /* v8 ignore if */
      if (!isRyeError(error)) throw error;
      return fail(base, 'malformed', error.code, error.message);
    }
    if (json.payload === null)
      return fail(
        base,
        'unsigned',
        'INTEGRITY_UNSIGNED',
        `Cannot verify ${label}: no "${format.field}" field`,
      );
    const fields = tryParseSignaturePayload(json.payload);
    if (fields === undefined) {
      return fail(
        base,
        'malformed',
        'INTEGRITY_MALFORMED_SIGNATURE',
        `Cannot verify ${label}: the "${format.field}" value is not a well-formed signature`,
      );
    }
    return checkSignature(
      base,
      label,
      fields,
      [{ coverage: null, text: json.hashedText }],
      options,
    );
  }

  const located = locateCommentSignature(text, format);
  if (located.status === 'unsigned') {
    if (located.misplacedLine !== null) {
      return {
        ...fail(
          base,
          'unsigned',
          'INTEGRITY_SIGNATURE_MISPLACED',
          `Cannot verify ${label}: the signature line on line ${located.misplacedLine} is not where a signature counts`,
        ),
        line: located.misplacedLine,
      };
    }
    return fail(
      base,
      'unsigned',
      'INTEGRITY_UNSIGNED',
      `Cannot verify ${label}: no signature line`,
    );
  }
  if (located.status === 'malformed') {
    return {
      ...fail(
        base,
        'malformed',
        'INTEGRITY_MALFORMED_SIGNATURE',
        `Cannot verify ${label}: the signature line on line ${located.line} is malformed`,
      ),
      line: located.line,
    };
  }
  if (located.duplicateLine !== null) {
    return {
      ...fail(
        base,
        'malformed',
        'INTEGRITY_DUPLICATE_SIGNATURE',
        `Cannot verify ${label}: a second signature line on line ${located.duplicateLine}`,
      ),
      line: located.duplicateLine,
    };
  }
  return checkSignature(
    base,
    label,
    located.fields,
    candidatesFor(options.itemType, located.body, text),
    options,
  );
}

/** Lazily yields the texts a signature may cover, most complete first. */
function* candidatesFor(itemType: ItemType, body: string, text: string): Generator<Candidate> {
  if (itemType === 'tool') {
    yield { coverage: null, text: toolHashedText(body) };
    return;
  }
  if (itemType === 'knowledge') {
    yield { coverage: null, text: body };
    return;
  }
  yield { coverage: 'full', text: body };
  const span = directiveSpan(text);
  if (span !== undefined) yield { coverage: 'xml-only', text: span };
}

function checkSignature(
  base: VerifyResult,
  label: string,
  fields: SignatureFields,
  candidates: Iterable<Candidate>,
  options: VerifyTextOptions,
): VerifyResult | PendingCheck {
  const signed: VerifyResult = {
    ...base,
    fingerprint: fields.fingerprint,
    contentHash: fields.contentHash,
    provenance: fields.provenance,
    timestamp: fields.timestamp,
  };
  let matched: Candidate | undefined;
  // Every item type has at least one candidate, so the loop sets this.
  let actualHash = '';
  for (const candidate of candidates) {
    actualHash = sha256Hex(candidate.text);
    if (hexDigestsEqual(actualHash, fields.contentHash)) {
      matched = candidate;
      break;
    }
  }
  if (matched === undefined) {
    // For directives the last hash tried is the <directive> span: the part every
    // implementation hashes, so the most useful one to show.
    return {
      ...fail(
        signed,
        'hash_mismatch',
        'INTEGRITY_HASH_MISMATCH',
        `Cannot verify ${label}: content hash ${actualHash} does not match the signed hash ${fields.contentHash}`,
      ),
      actualHash,
    };
  }
  const found: VerifyResult = { ...signed, actualHash, coverage: matched.coverage };
  const key = options.trust.get(fields.fingerprint);
  if (key === undefined) {
    const pending = pendingKeyFor(options.trust, fields.fingerprint);
    if (pending !== undefined) {
      return fail(
        found,
        'untrusted_key',
        'TRUST_PROJECT_UNAPPROVED',
        `Cannot verify ${label}: signed by key ${fields.fingerprint}${pending.owner === '' ? '' : ` (${pending.owner})`} from the trust store of project ${pending.project}, which you have not approved; review ${join(pending.project, '.ai', 'trusted_keys')}, then run \`rye trust approve --project ${pending.project}\``,
      );
    }
    return fail(
      found,
      'untrusted_key',
      'INTEGRITY_UNTRUSTED_KEY',
      `Cannot verify ${label}: signed by key ${fields.fingerprint}, which is not trusted`,
    );
  }
  if (!scopesCover(key.scopes, options.subject)) {
    const subject = options.subject;
    const what =
      subject === null || subject === undefined
        ? 'and this check does not name an item'
        : `not ${subject.itemType} ${subject.itemId}`;
    return fail(
      found,
      'untrusted_key',
      'INTEGRITY_UNTRUSTED_KEY',
      `Cannot verify ${label}: signed by key ${fields.fingerprint}${key.owner === '' ? '' : ` (${key.owner})`}, which is trusted only for ${describeScopes(key.scopes)}, ${what}`,
    );
  }
  // The payload grammar admits only 86 base64url digits: always 64 bytes (and
  // verifyBytes refuses any other length anyway).
  const signature = Buffer.from(fields.signature.replace(/=+$/, ''), 'base64url');
  const bad = fail(
    found,
    'bad_signature',
    'INTEGRITY_BAD_SIGNATURE',
    `Cannot verify ${label}: the Ed25519 signature is not valid for key ${fields.fingerprint}`,
  );
  const ok: VerifyResult = {
    ...found,
    ok: true,
    verdict: 'ok',
    signer: key.owner,
    message: `Verified ${label}: signed by ${key.owner === '' ? 'an unnamed key' : key.owner} (${fields.fingerprint})${matched.coverage === 'xml-only' ? ', <directive> span only' : ''}`,
  };
  return {
    pending: true,
    key: key.key,
    message: Buffer.from(fields.contentHash, 'latin1'),
    signature,
    ok,
    bad,
  };
}

function fail(
  base: VerifyResult,
  verdict: Verdict,
  code: ErrorCode,
  message: string,
): VerifyResult {
  return { ...base, ok: false, verdict, code, message };
}
