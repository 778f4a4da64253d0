import { parse as parseToml } from 'smol-toml';
import { RyeError } from '../errors/index.js';
import { canonicalPem, parsePublicKey } from './keys.js';
import type { TrustedKey } from './trust.js';

/** Largest trusted-key document accepted (a key file is well under 1 KiB). */
export const MAX_TRUST_FILE_BYTES = 64 * 1024;

/**
 * Parse a trusted-key TOML document (ARCHITECTURE.md layout). The fingerprint
 * is recomputed from the PEM and must equal the recorded one. Untrusted input:
 * a text over {@link MAX_TRUST_FILE_BYTES} is refused before the TOML parser
 * sees it, whoever read it (the parser's own work grows with the text).
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
      `Cannot parse trusted key ${source}: ${(error as Error).message.split('\n')[0] ?? ''}`,
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
  return {
    fingerprint,
    publicKeyPem: info.publicKeyPem,
    owner,
    attestation,
    source,
    key: info.key,
  };
}

/** Serialize a trusted key in the exact TOML layout the Python implementation writes. */
export function formatTrustToml(
  key: Pick<TrustedKey, 'fingerprint' | 'owner' | 'attestation' | 'publicKeyPem'>,
): string {
  return [
    `fingerprint = ${tomlString(key.fingerprint)}`,
    `owner = ${tomlString(key.owner)}`,
    `attestation = ${tomlString(key.attestation)}`,
    '',
    '[public_key]',
    'pem = """',
    canonicalPem(key.publicKeyPem) + '"""',
    '',
  ].join('\n');
}

function tomlString(value: string): string {
  return JSON.stringify(value).replace(
    /[\u007f-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
