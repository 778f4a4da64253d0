import { sha256Hex, type TrustSet } from '../integrity/index.js';

/**
 * A digest of everything a verdict depends on besides the bytes: each trusted
 * key (fingerprint, public key, scopes) and the unapproved project keys (they
 * change a refusal's code). Cached verdicts count only under the same digest,
 * so adding, removing, re-scoping or approving a key re-verifies. Pure.
 */
export function trustDigest(
  trust: TrustSet,
  pending: readonly { readonly fingerprint: string }[] = [],
): string {
  const keys = [...trust.values()]
    .map((k) => ({ fp: k.fingerprint, pem: k.publicKeyPem, scopes: k.scopes ?? [] }))
    .sort((a, b) => (a.fp < b.fp ? -1 : a.fp > b.fp ? 1 : 0));
  const unapproved = pending.map((k) => k.fingerprint).sort();
  // Objects built here in a fixed key order: JSON.stringify is deterministic for them.
  return sha256Hex(JSON.stringify({ keys, pending: unapproved }));
}
