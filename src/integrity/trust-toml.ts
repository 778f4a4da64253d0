import { parse as parseToml } from 'smol-toml';
import { RyeError } from '../errors/index.js';
import { parseKeyScope, type KeyScope } from './key-scope.js';
import { canonicalPem, parsePublicKey } from './keys.js';
import type { TrustedKey } from './trust.js';

/** Largest trusted-key document accepted (a key file is well under 1 KiB). */
export const MAX_TRUST_FILE_BYTES = 64 * 1024;

/**
 * Parse a trusted-key TOML document (ARCHITECTURE.md layout). The fingerprint
 * is recomputed from the PEM and must equal the recorded one. Untrusted input:
 * a text over {@link MAX_TRUST_FILE_BYTES} is refused before the TOML parser
 * sees it, whoever read it (the parser's own work grows with the text).
 * Optional `scope` (id patterns) and `item_types` limit what the key may sign
 * (`key-scope.ts`); a malformed one makes the whole file invalid, never
 * unrestricted.
 *
 * @throws RyeError TRUST_FILE_INVALID, KEY_INVALID, TRUST_FINGERPRINT_MISMATCH
 */
export function parseTrustToml(text: string, source: string): TrustedKey {
  const bytes = text.length > MAX_TRUST_FILE_BYTES ? text.length : Buffer.byteLength(text, 'utf8');
  if (bytes > MAX_TRUST_FILE_BYTES) {
    throw new RyeError(
      'TRUST_FILE_INVALID',
      `Cannot parse trusted key ${source}: it is at least ${bytes} bytes, over the cap of ${MAX_TRUST_FILE_BYTES}`,
      { source, bytes, maxBytes: MAX_TRUST_FILE_BYTES },
    );
  }
  let doc: Record<string, unknown>;
  try {
    doc = parseToml(text) as Record<string, unknown>;
  } catch (error) {
    throw new RyeError(
      'TRUST_FILE_INVALID',
      `Cannot parse trusted key ${source}: ${(error as Error).message.replace(/\n[^]*$/, '')}`,
      { source },
      { cause: error },
    );
  }
  const fingerprint = doc['fingerprint'];
  const owner = doc['owner'] ?? '';
  const attestation = doc['attestation'] ?? '';
  const table = doc['public_key'];
  const pem =
    typeof table === 'object' && table !== null
      ? (table as Record<string, unknown>)['pem']
      : undefined;
  if (
    typeof fingerprint !== 'string' ||
    typeof pem !== 'string' ||
    typeof owner !== 'string' ||
    typeof attestation !== 'string'
  ) {
    throw new RyeError(
      'TRUST_FILE_INVALID',
      `Cannot use trusted key ${source}: it needs string fields fingerprint, owner, attestation and [public_key] pem`,
      { source },
    );
  }
  const info = parsePublicKey(pem);
  if (info.fingerprint !== fingerprint) {
    throw new RyeError(
      'TRUST_FINGERPRINT_MISMATCH',
      `Cannot trust ${source}: it says fingerprint ${fingerprint} but its key has fingerprint ${info.fingerprint}`,
      { source, recorded: fingerprint, actual: info.fingerprint },
    );
  }
  const scope = parseKeyScope(doc['scope'], doc['item_types'], source);
  return {
    fingerprint,
    publicKeyPem: info.publicKeyPem,
    owner,
    attestation,
    source,
    key: info.key,
    ...(scope === undefined ? {} : { scopes: [scope] }),
  };
}

/**
 * Serialize a trusted key in the exact TOML layout the Python implementation
 * writes, plus `scope` / `item_types` lines when the key is restricted (the
 * Python reader ignores them). Only a single restriction can be written.
 *
 * @throws RyeError INTERNAL_ERROR for a key carrying several restrictions.
 */
export function formatTrustToml(
  key: Pick<TrustedKey, 'fingerprint' | 'owner' | 'attestation' | 'publicKeyPem' | 'scopes'>,
): string {
  const scopes = key.scopes ?? [];
  if (scopes.length > 1)
    throw new RyeError(
      'INTERNAL_ERROR',
      `Cannot write trusted key ${key.fingerprint}: it carries ${scopes.length} restrictions (a merged trust set, not one file)`,
      { fingerprint: key.fingerprint },
    );
  return [
    `fingerprint = ${tomlString(key.fingerprint)}`,
    `owner = ${tomlString(key.owner)}`,
    `attestation = ${tomlString(key.attestation)}`,
    ...scopeLines(scopes[0]),
    '',
    '[public_key]',
    'pem = """',
    canonicalPem(key.publicKeyPem) + '"""',
    '',
  ].join('\n');
}

function scopeLines(scope: KeyScope | undefined): string[] {
  const list = (values: readonly string[]): string => `[${values.map(tomlString).join(', ')}]`;
  const lines: string[] = [];
  if (scope !== undefined && scope.ids !== null) lines.push(`scope = ${list(scope.ids)}`);
  if (scope !== undefined && scope.itemTypes !== null)
    lines.push(`item_types = ${list(scope.itemTypes)}`);
  return lines;
}

function tomlString(value: string): string {
  return JSON.stringify(value).replace(
    /[\u007f-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
