/**
 * The signature payload `rye:signed:TIMESTAMP:CONTENT_HASH:SIG:FP[|rye-registry@USER]`,
 * independent of the comment syntax around it. The timestamp holds colons, so
 * the payload is parsed with one anchored regex, never by splitting.
 */
export interface SignatureFields {
  readonly timestamp: string;
  readonly contentHash: string;
  /** base64url Ed25519 signature as written (padding optional). */
  readonly signature: string;
  readonly fingerprint: string;
  /** Unsigned provenance suffix such as `rye-registry@alice`, or null. */
  readonly provenance: string | null;
}

export const SIGNATURE_MARKER = 'rye:signed:';

const PAYLOAD_RE =
  /^rye:signed:(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z):([0-9a-f]{64}):([A-Za-z0-9_-]{86}(?:==)?):([0-9a-f]{16})(?:\|([A-Za-z0-9_-]+@[A-Za-z0-9_-]+))?$/;

/** Parse a payload; undefined when it is not well formed (tryParse style). */
export function tryParseSignaturePayload(payload: string): SignatureFields | undefined {
  const m = PAYLOAD_RE.exec(payload);
  if (m === null) return undefined;
  // Only the provenance group is optional: a match has the other four.
  const [, timestamp, contentHash, signature, fingerprint, provenance] = m as unknown as [
    string,
    string,
    string,
    string,
    string,
    string | undefined,
  ];
  return { timestamp, contentHash, signature, fingerprint, provenance: provenance ?? null };
}

/** Format a payload; the signature is emitted base64url with `=` padding. */
export function formatSignaturePayload(fields: SignatureFields): string {
  const suffix = fields.provenance === null ? '' : `|${fields.provenance}`;
  return `${SIGNATURE_MARKER}${fields.timestamp}:${fields.contentHash}:${fields.signature}:${fields.fingerprint}${suffix}`;
}

/** Decode the base64url signature (with or without padding) to its 64 bytes, or undefined. */
export function decodeSignature(signature: string): Buffer | undefined {
  const bytes = Buffer.from(signature.replace(/=+$/, ''), 'base64url');
  return bytes.length === 64 ? bytes : undefined;
}

/** Encode signature bytes as padded base64url (the emitted form). */
export function encodeSignature(bytes: Uint8Array): string {
  const unpadded = Buffer.from(bytes).toString('base64url');
  return unpadded + '='.repeat((4 - (unpadded.length % 4)) % 4);
}

/** UTC timestamp in the line's format, seconds precision. */
export function formatTimestamp(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}
