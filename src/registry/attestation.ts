import type { KeyObject } from 'node:crypto';
import { parseCanonicalDocument } from './canonical-document.js';
import { RyeError } from '../errors/index.js';
import {
  decodeSignature,
  encodeSignature,
  signBytes,
  verifyBytes,
  type Signer,
} from '../integrity/index.js';
import { isSemver, problemWith } from '../items/index.js';
import { isUsername } from './names.js';

/**
 * The registry's attestation: a statement binding what was published (kind,
 * type, namespace, id, version, extension), the content hash the signatures
 * cover, the author's key fingerprint, the registry's own fingerprint and the
 * time, signed by the registry key. A registry that served one item's content
 * under another name would have to forge this statement.
 *
 * The signed bytes are the statement's canonical JSON: keys sorted, no
 * whitespace, ASCII only (every field is checked to be ASCII), UTF-8 encoded.
 */
export interface AttestationStatement {
  readonly rye_attestation: 1;
  readonly kind: 'item' | 'bundle';
  /** `directive`, `tool` or `knowledge` for items; null for bundles. */
  readonly item_type: 'directive' | 'tool' | 'knowledge' | null;
  readonly namespace: string;
  readonly item_id: string;
  readonly version: string;
  /** Items: file extension with its dot; bundles: null. */
  readonly extension: string | null;
  /** The signature content hash (64 hex) of the item or the bundle manifest. */
  readonly content_hash: string;
  readonly author_fingerprint: string;
  readonly registry_fingerprint: string;
  /** `YYYY-MM-DDTHH:MM:SSZ`. */
  readonly attested_at: string;
}

const KEYS = [
  'attested_at',
  'author_fingerprint',
  'content_hash',
  'extension',
  'item_id',
  'item_type',
  'kind',
  'namespace',
  'registry_fingerprint',
  'rye_attestation',
  'version',
] as const;

const HEX64 = /^[0-9a-f]{64}$/;
const FP = /^[0-9a-f]{16}$/;
const TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
const EXTENSION = /^\.[a-z0-9]{1,8}$/;

/** The exact bytes (as text) the registry signs. Pure. */
export function formatStatement(statement: AttestationStatement): string {
  const record = statement as unknown as Record<string, unknown>;
  return `{${KEYS.map((k) => `${JSON.stringify(k)}:${JSON.stringify(record[k])}`).join(',')}}`;
}

/** Sign a statement with the registry key: base64url (padded) Ed25519 over its canonical text. */
export function signStatement(
  signer: Signer,
  statement: AttestationStatement,
): {
  statement: string;
  signature: string;
} {
  const text = formatStatement(statement);
  return {
    statement: text,
    signature: encodeSignature(signBytes(signer.privateKey, Buffer.from(text, 'utf8'))),
  };
}

/**
 * Parse a statement received from a registry: exactly the known fields, each
 * well-formed, and canonical (re-formatting gives the same text), so two
 * parsers can never read one signed statement differently.
 *
 * @throws RyeError REGISTRY_ATTESTATION_INVALID
 */
export function parseStatement(text: string): AttestationStatement {
  return parseCanonicalDocument(text, {
    keys: KEYS,
    fieldProblem,
    format: formatStatement,
    refuse: invalid,
  });
}

/**
 * Check the registry's signature over a statement's exact text.
 *
 * @throws RyeError REGISTRY_ATTESTATION_INVALID
 */
export function assertStatementSigned(
  registryKey: KeyObject,
  statement: string,
  signature: string,
): void {
  const bytes = decodeSignature(signature);
  if (bytes === undefined || !verifyBytes(registryKey, Buffer.from(statement, 'utf8'), bytes)) {
    throw new RyeError(
      'REGISTRY_ATTESTATION_INVALID',
      'Cannot accept the registry answer: its attestation is not signed by the pinned registry key',
      {},
    );
  }
}

function fieldProblem(o: Record<string, unknown>): string | undefined {
  if (o['rye_attestation'] !== 1) return 'rye_attestation is not 1';
  if (o['kind'] !== 'item' && o['kind'] !== 'bundle') return 'kind is not item or bundle';
  const isItem = o['kind'] === 'item';
  const type = o['item_type'];
  if (isItem ? !['directive', 'tool', 'knowledge'].includes(type as string) : type !== null)
    return 'item_type does not fit the kind';
  const ext = o['extension'];
  if (isItem ? typeof ext !== 'string' || !EXTENSION.test(ext) : ext !== null)
    return 'extension does not fit the kind';
  if (!isUsername(o['namespace'])) return 'namespace is not a username';
  const id = o['item_id'];
  if (typeof id !== 'string' || problemWith(id) !== undefined) return 'item_id is not a valid id';
  if (!isSemver(o['version'])) return 'version is not semver';
  if (!isHex(o['content_hash'], HEX64)) return 'content_hash is not 64 hex';
  if (!isHex(o['author_fingerprint'], FP)) return 'author_fingerprint is not 16 hex';
  if (!isHex(o['registry_fingerprint'], FP)) return 'registry_fingerprint is not 16 hex';
  if (!isHex(o['attested_at'], TIME)) return 'attested_at is not a UTC timestamp';
  return undefined;
}

function isHex(value: unknown, re: RegExp): boolean {
  return typeof value === 'string' && re.test(value);
}

function invalid(why: string): RyeError {
  return new RyeError(
    'REGISTRY_ATTESTATION_INVALID',
    `Cannot accept the registry attestation: ${why}`,
    {},
  );
}
