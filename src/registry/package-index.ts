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
import { compareSemver, isSemver, problemWith } from '../items/index.js';
import { isUsername } from './names.js';

/**
 * The signed package index (TUF-style snapshot of one package): every version
 * with its content hash and yank state, the latest version, a sequence number
 * that only grows, and an expiry. The registry signs it with its key; a client
 * that checks it cannot be served a yanked or older version as latest, rolled
 * back to an older index, or frozen on one past its expiry without noticing.
 *
 * The signed bytes are the canonical JSON text (keys sorted, no whitespace,
 * every field ASCII), carried as a string, like the attestation statement.
 * The field `rye_index` keeps an index from ever reading as a statement.
 */
export interface PackageIndex {
  readonly rye_index: 1;
  readonly registry_fingerprint: string;
  readonly kind: 'item' | 'bundle';
  /** `directive`, `tool` or `knowledge` for items; null for bundles. */
  readonly item_type: 'directive' | 'tool' | 'knowledge' | null;
  readonly namespace: string;
  readonly item_id: string;
  /** The registry's change counter when this package last changed (publish or yank). */
  readonly seq: number;
  /** `YYYY-MM-DDTHH:MM:SSZ`. */
  readonly issued_at: string;
  /** `YYYY-MM-DDTHH:MM:SSZ`: a client refuses the index from this second on. */
  readonly expires_at: string;
  /** The highest version by semver precedence that is not yanked; null when all are. */
  readonly latest: string | null;
  /** In publication order. */
  readonly versions: readonly IndexEntry[];
}

export interface IndexEntry {
  readonly version: string;
  /** The signature content hash the version's attestation binds (64 hex). */
  readonly content_hash: string;
  readonly published_at: string;
  readonly yanked: boolean;
}

/** `GET /v1/index`: the canonical index text and the registry's signature over it. */
export interface SignedIndexDocument {
  readonly index: string;
  /** base64url Ed25519 signature of `index` (its UTF-8 bytes) by the registry key. */
  readonly signature: string;
}

/** Largest index text a client reads, and most versions one index lists. */
export const MAX_INDEX_BYTES = 4 * 1024 * 1024;
export const MAX_INDEX_VERSIONS = 20_000;

const KEYS = [
  'expires_at',
  'issued_at',
  'item_id',
  'item_type',
  'kind',
  'latest',
  'namespace',
  'registry_fingerprint',
  'rye_index',
  'seq',
  'versions',
] as const;
const ENTRY_KEYS = ['content_hash', 'published_at', 'version', 'yanked'] as const;

const HEX64 = /^[0-9a-f]{64}$/;
const FP = /^[0-9a-f]{16}$/;
const TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
const PUBLISHED = /^[0-9A-Za-z:.+-]{1,64}$/;

/**
 * The highest version by semver precedence that is not yanked (the first one
 * listed on a tie), or null. Pure; the server and the client both use it.
 */
export function latestOf(
  versions: readonly { readonly version: string; readonly yanked: boolean }[],
): string | null {
  let best: string | null = null;
  for (const v of versions) {
    if (!v.yanked && (best === null || compareSemver(v.version, best) > 0)) best = v.version;
  }
  return best;
}

/** The exact text the registry signs. Pure. */
export function formatIndex(index: PackageIndex): string {
  const record = index as unknown as Record<string, unknown>;
  return `{${KEYS.map((k) => `${JSON.stringify(k)}:${k === 'versions' ? formatEntries(index.versions) : JSON.stringify(record[k])}`).join(',')}}`;
}

function formatEntries(entries: readonly IndexEntry[]): string {
  const one = (e: IndexEntry) => {
    const r = e as unknown as Record<string, unknown>;
    return `{${ENTRY_KEYS.map((k) => `${JSON.stringify(k)}:${JSON.stringify(r[k])}`).join(',')}}`;
  };
  return `[${entries.map(one).join(',')}]`;
}

/** Sign an index with the registry key: base64url (padded) Ed25519 over its canonical text. */
export function signIndex(
  signer: Signer,
  index: PackageIndex,
): { index: string; signature: string } {
  const text = formatIndex(index);
  return {
    index: text,
    signature: encodeSignature(signBytes(signer.privateKey, Buffer.from(text, 'utf8'))),
  };
}

/**
 * Check the registry's signature over an index's exact text, before it is
 * parsed (a cheap refusal: no parsing of bytes nobody vouched for).
 *
 * @throws RyeError REGISTRY_INDEX_SIGNATURE_INVALID
 */
export function assertIndexSigned(registryKey: KeyObject, text: string, signature: string): void {
  const bytes = decodeSignature(signature);
  const body = Buffer.from(text, 'utf8');
  if (
    body.length > MAX_INDEX_BYTES ||
    bytes === undefined ||
    !verifyBytes(registryKey, body, bytes)
  )
    throw new RyeError(
      'REGISTRY_INDEX_SIGNATURE_INVALID',
      'Cannot accept the package index: it is not signed by the pinned registry key',
      {},
    );
}

/**
 * Parse a signed index: exactly the known fields, each well-formed, no version
 * twice, `latest` the one {@link latestOf} computes, and canonical text
 * (re-formatting gives the same bytes).
 *
 * @throws RyeError REGISTRY_INDEX_INVALID
 */
export function parseIndex(text: string): PackageIndex {
  return parseCanonicalDocument(text, {
    keys: KEYS,
    fieldProblem,
    format: formatIndex,
    refuse: invalid,
  });
}

function fieldProblem(o: Record<string, unknown>): string | undefined {
  if (o['rye_index'] !== 1) return 'rye_index is not 1';
  if (!isHex(o['registry_fingerprint'], FP)) return 'registry_fingerprint is not 16 hex';
  if (o['kind'] !== 'item' && o['kind'] !== 'bundle') return 'kind is not item or bundle';
  const type = o['item_type'];
  if (
    o['kind'] === 'item'
      ? !['directive', 'tool', 'knowledge'].includes(type as string)
      : type !== null
  )
    return 'item_type does not fit the kind';
  if (!isUsername(o['namespace'])) return 'namespace is not a username';
  const id = o['item_id'];
  if (typeof id !== 'string' || problemWith(id) !== undefined) return 'item_id is not a valid id';
  const seq = o['seq'];
  if (typeof seq !== 'number' || !Number.isSafeInteger(seq) || seq < 0)
    return 'seq is not a non-negative integer';
  if (!isHex(o['issued_at'], TIME)) return 'issued_at is not a UTC timestamp';
  if (!isHex(o['expires_at'], TIME)) return 'expires_at is not a UTC timestamp';
  if ((o['expires_at'] as string) <= (o['issued_at'] as string))
    return 'expires_at is not after issued_at';
  const versions = o['versions'];
  if (!Array.isArray(versions) || versions.length > MAX_INDEX_VERSIONS)
    return `versions is not an array of at most ${MAX_INDEX_VERSIONS}`;
  const seen = new Set<string>();
  for (const [i, e] of versions.entries()) {
    const problem = entryProblem(e);
    if (problem !== undefined) return `versions[${i}] ${problem}`;
    const version = (e as IndexEntry).version;
    if (seen.has(version)) return `versions lists ${version} twice`;
    seen.add(version);
  }
  const latest = o['latest'];
  if (latest !== null && !isSemver(latest)) return 'latest is not semver or null';
  if (latest !== latestOf(versions as IndexEntry[]))
    return 'latest is not the highest version that is not yanked';
  return undefined;
}

function entryProblem(e: unknown): string | undefined {
  if (!isObject(e)) return 'is not an object';
  if (Object.keys(e).sort().join(',') !== ENTRY_KEYS.join(',')) return 'has other fields';
  if (!isSemver(e['version'])) return 'version is not semver';
  if (!isHex(e['content_hash'], HEX64)) return 'content_hash is not 64 hex';
  if (!isHex(e['published_at'], PUBLISHED)) return 'published_at is not a timestamp';
  if (typeof e['yanked'] !== 'boolean') return 'yanked is not a boolean';
  return undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isHex(value: unknown, re: RegExp): boolean {
  return typeof value === 'string' && re.test(value);
}

function invalid(why: string): RyeError {
  return new RyeError('REGISTRY_INDEX_INVALID', `Cannot accept the package index: ${why}`, {});
}
