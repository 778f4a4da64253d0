/**
 * Checks for every registry answer the client reads (protocol v1, wire.ts).
 * UNTRUSTED INPUT: nothing from an answer is used before it passed here.
 * @throws RyeError REGISTRY_BAD_RESPONSE naming the first bad field.
 */
import { MAX_MANIFEST_BYTES } from '../../bundle/index.js';
import { ITEM_TYPES, isSemver, problemWith, type ItemType } from '../../items/index.js';
import { MAX_ITEM_BYTES, type JsonObject } from '../../platform/index.js';
import { KEY_CHALLENGE_RE } from '../key-proof.js';
import { isUsername } from '../names.js';
import type {
  AttestationDocument,
  AuthorDocument,
  BundleFileDocument,
  BundleVersionDocument,
  ItemVersionDocument,
  KeyChallengeDocument,
  KeyRemovedDocument,
  RegistryKeyDocument,
  SearchDocument,
  SessionDocument,
  VersionsDocument,
  WhoamiDocument,
} from '../wire.js';
import { Shape } from './shape.js';

const FP = (s: string) => /^[0-9a-f]{16}$/.test(s);
const HEX64 = (s: string) => /^[0-9a-f]{64}$/.test(s);
const ID = (s: string) => problemWith(s) === undefined;
const EXTENSION = (s: string) => /^\.[a-z0-9]{1,8}$/.test(s);
/** Files a bundle answer may list (a 16 MiB manifest holds fewer). */
const MAX_BUNDLE_FILES = 200_000;
const PEM_BYTES = 4096;

export function parseRegistryKeyDocument(value: unknown, url: string): RegistryKeyDocument {
  const s = new Shape(url, 'the registry key document');
  const o = s.object(value, '(top level)');
  return {
    protocol: s.literal(o, 'protocol', '', [1] as const),
    algorithm: s.literal(o, 'algorithm', '', ['ed25519'] as const),
    public_key: s.string(o, 'public_key', '', () => true, PEM_BYTES),
    fingerprint: s.string(o, 'fingerprint', '', FP),
  };
}

function author(s: Shape, o: JsonObject): AuthorDocument {
  const a = s.objectField(o, 'author', '');
  return {
    fingerprint: s.string(a, 'fingerprint', 'author.', FP),
    public_key: s.string(a, 'public_key', 'author.', () => true, PEM_BYTES),
    signature: s.string(a, 'signature', 'author.', () => true, 1024),
  };
}

function attestation(s: Shape, o: JsonObject): AttestationDocument {
  const a = s.objectField(o, 'attestation', '');
  return {
    statement: s.string(a, 'statement', 'attestation.', () => true, 8192),
    signature: s.string(a, 'signature', 'attestation.', () => true, 256),
  };
}

export function parseItemVersionDocument(value: unknown, url: string): ItemVersionDocument {
  const s = new Shape(url, 'the item document');
  const o = s.object(value, '(top level)');
  return {
    kind: s.literal(o, 'kind', '', ['item'] as const),
    item_type: s.literal(o, 'item_type', '', ITEM_TYPES as readonly ItemType[]),
    namespace: s.string(o, 'namespace', '', isUsername),
    item_id: s.string(o, 'item_id', '', ID, 1024),
    version: s.string(o, 'version', '', isSemver, 256),
    extension: s.string(o, 'extension', '', EXTENSION),
    content: s.string(o, 'content', '', () => true, MAX_ITEM_BYTES),
    author: author(s, o),
    attestation: attestation(s, o),
    yanked: s.boolean(o, 'yanked', ''),
    published_at: s.string(o, 'published_at', '', () => true, 64),
  };
}

export function parseBundleVersionDocument(value: unknown, url: string): BundleVersionDocument {
  const s = new Shape(url, 'the bundle document');
  const o = s.object(value, '(top level)');
  const files: BundleFileDocument[] = s.array(o, 'files', '', MAX_BUNDLE_FILES).map((entry, i) => {
    const at = `files[${i}].`;
    const f = s.object(entry, at.slice(0, -1));
    return {
      path: s.string(f, 'path', at),
      sha256: s.string(f, 'sha256', at, HEX64),
      size: s.count(f, 'size', at),
    };
  });
  return {
    kind: s.literal(o, 'kind', '', ['bundle'] as const),
    namespace: s.string(o, 'namespace', '', isUsername),
    bundle_id: s.string(o, 'bundle_id', '', ID, 1024),
    version: s.string(o, 'version', '', isSemver, 256),
    manifest: s.string(o, 'manifest', '', () => true, MAX_MANIFEST_BYTES),
    author: author(s, o),
    attestation: attestation(s, o),
    files,
    yanked: s.boolean(o, 'yanked', ''),
    published_at: s.string(o, 'published_at', '', () => true, 64),
  };
}

export function parseSessionDocument(value: unknown, url: string): SessionDocument {
  const s = new Shape(url, 'the session document');
  const o = s.object(value, '(top level)');
  return {
    username: s.string(o, 'username', '', isUsername),
    token: s.string(o, 'token', '', (t) => t.length > 0 && /^[\x21-\x7e]+$/.test(t), 1024),
    token_id: s.string(o, 'token_id', '', (t) => t.length > 0, 256),
  };
}

export function parseWhoamiDocument(value: unknown, url: string): WhoamiDocument {
  const s = new Shape(url, 'the whoami document');
  const o = s.object(value, '(top level)');
  return {
    username: s.string(o, 'username', '', isUsername),
    token_id: s.string(o, 'token_id', '', () => true, 256),
    keys: s.array(o, 'keys', '', 10_000).map((entry, i) => {
      const at = `keys[${i}].`;
      const k = s.object(entry, at.slice(0, -1));
      return {
        fingerprint: s.string(k, 'fingerprint', at, FP),
        added_at: s.string(k, 'added_at', at, () => true, 64),
      };
    }),
  };
}

export function parseFingerprintDocument(value: unknown, url: string): { fingerprint: string } {
  const s = new Shape(url, 'the key answer');
  const o = s.object(value, '(top level)');
  return { fingerprint: s.string(o, 'fingerprint', '', FP) };
}

export function parseKeyRemovedDocument(value: unknown, url: string): KeyRemovedDocument {
  const s = new Shape(url, 'the key removal answer');
  const o = s.object(value, '(top level)');
  return {
    fingerprint: s.string(o, 'fingerprint', '', FP),
    status: s.literal(o, 'status', '', ['removed', 'already_removed'] as const),
  };
}

export function parseKeyChallengeDocument(value: unknown, url: string): KeyChallengeDocument {
  const s = new Shape(url, 'the key challenge');
  const o = s.object(value, '(top level)');
  return {
    challenge: s.string(o, 'challenge', '', (c) => KEY_CHALLENGE_RE.test(c), 64),
    registry_fingerprint: s.string(o, 'registry_fingerprint', '', FP),
    username: s.string(o, 'username', '', isUsername),
    expires_at: s.string(o, 'expires_at', '', () => true, 64),
  };
}

export function parseVersionsDocument(value: unknown, url: string): VersionsDocument {
  const s = new Shape(url, 'the versions document');
  const o = s.object(value, '(top level)');
  return {
    versions: s.array(o, 'versions', '', 100_000).map((entry, i) => {
      const at = `versions[${i}].`;
      const v = s.object(entry, at.slice(0, -1));
      return {
        version: s.string(v, 'version', at, isSemver, 256),
        yanked: s.boolean(v, 'yanked', at),
        published_at: s.string(v, 'published_at', at, () => true, 64),
        content_hash: s.string(v, 'content_hash', at, HEX64),
      };
    }),
  };
}

export function parseSearchDocument(value: unknown, url: string): SearchDocument {
  const s = new Shape(url, 'the search document');
  const o = s.object(value, '(top level)');
  return {
    results: s.array(o, 'results', '', 10_000).map((entry, i) => {
      const at = `results[${i}].`;
      const r = s.object(entry, at.slice(0, -1));
      const kind = s.literal(r, 'kind', at, ['item', 'bundle'] as const);
      return {
        kind,
        item_type:
          kind === 'item'
            ? s.literal(r, 'item_type', at, ITEM_TYPES as readonly ItemType[])
            : r['item_type'] === null
              ? null
              : s.fail(`${at}item_type`, 'is not null for a bundle'),
        namespace: s.string(r, 'namespace', at, isUsername),
        item_id: s.string(r, 'item_id', at, ID, 1024),
        latest_version: s.string(r, 'latest_version', at, isSemver, 256),
        versions: s.count(r, 'versions', at),
        description: s.nullableString(r, 'description', at, 4096),
        published_at: s.string(r, 'published_at', at, () => true, 64),
      };
    }),
  };
}

export function parseYankDocument(value: unknown, url: string): { yanked: boolean } {
  const s = new Shape(url, 'the yank answer');
  return { yanked: s.boolean(s.object(value, '(top level)'), 'yanked', '') };
}
