/**
 * Genuine registry answers made in the test (a registry key the test holds),
 * and a tiny loopback HTTP server that serves whatever a test scripts.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { serializeManifest, type BundleManifest } from '../../../src/bundle/index.js';
import {
  formatSignaturePayload,
  sha256Hex,
  signText,
  type Signer,
} from '../../../src/integrity/index.js';
import { prepareToPin } from '../../../src/executor/index.js';
import { formatTimestamp } from '../../../src/integrity/index.js';
import { resolveSpaces, type ItemType, type Spaces } from '../../../src/items/index.js';
import {
  latestOf,
  openSession,
  signIndex,
  signStatement,
  type AttestationStatement,
  type BundleVersionDocument,
  type IndexEntry,
  type ItemVersionDocument,
  type PackageIndex,
  type RegistryKeyDocument,
  type RegistrySession,
} from '../../../src/registry/index.js';
import { makeSigner } from '../../helpers/keys.js';

export interface TestKey {
  readonly signer: Signer;
  readonly publicKeyPem: string;
}

export function makeKey(): TestKey {
  const { signer, publicKeyPem } = makeSigner();
  return { signer, publicKeyPem };
}

export function keyDocument(key: TestKey): RegistryKeyDocument {
  return {
    protocol: 1,
    algorithm: 'ed25519',
    public_key: key.publicKeyPem,
    fingerprint: key.signer.fingerprint,
  };
}

const NOW = new Date('2026-01-02T03:04:05Z');

/** The statement a genuine registry signs; override any field to forge one. */
function statementFor(
  fields: Omit<AttestationStatement, 'rye_attestation' | 'attested_at' | 'registry_fingerprint'>,
  registry: TestKey,
): AttestationStatement {
  return {
    rye_attestation: 1,
    ...fields,
    registry_fingerprint: registry.signer.fingerprint,
    attested_at: '2026-01-02T03:04:05Z',
  };
}

export interface ItemAnswerInput {
  readonly registry: TestKey;
  readonly author: TestKey;
  readonly itemType: ItemType;
  readonly extension: string;
  /** Unsigned text; the author signs it here. */
  readonly text: string;
  readonly namespace: string;
  readonly itemId: string;
  readonly version: string;
}

/** A genuine item answer: author-signed, registry re-signed with provenance, attested. */
export function itemAnswer(input: ItemAnswerInput): {
  doc: ItemVersionDocument;
  authorText: string;
} {
  const { registry, author, itemType, extension, namespace } = input;
  const authored = signText(input.text, { itemType, extension, signer: author.signer, now: NOW });
  const attested = signText(authored.text, {
    itemType,
    extension,
    signer: registry.signer,
    provenance: `rye-registry@${namespace}`,
    now: NOW,
  });
  const statement = statementFor(
    {
      kind: 'item',
      item_type: itemType,
      namespace,
      item_id: input.itemId,
      version: input.version,
      extension,
      content_hash: authored.fields.contentHash,
      author_fingerprint: author.signer.fingerprint,
    },
    registry,
  );
  return {
    authorText: authored.text,
    doc: {
      kind: 'item',
      item_type: itemType,
      namespace,
      item_id: input.itemId,
      version: input.version,
      extension,
      content: attested.text,
      author: {
        fingerprint: author.signer.fingerprint,
        public_key: author.publicKeyPem,
        signature: formatSignaturePayload(authored.fields),
      },
      attestation: signStatement(registry.signer, statement),
      yanked: false,
      published_at: '2026-01-02T03:04:05Z',
    },
  };
}

/** Re-sign a (possibly edited) statement with a key: forge or re-attest. */
export function reattest(
  doc: ItemVersionDocument | BundleVersionDocument,
  signer: Signer,
  edit: Partial<AttestationStatement>,
): ItemVersionDocument | BundleVersionDocument {
  const statement = { ...(JSON.parse(doc.attestation.statement) as AttestationStatement), ...edit };
  return { ...doc, attestation: signStatement(signer, statement) };
}

export interface BundleAnswerInput {
  readonly registry: TestKey;
  readonly author: TestKey;
  readonly namespace: string;
  readonly bundleId: string;
  readonly version: string;
  /** Project-relative path → bytes. */
  readonly files: Readonly<Record<string, string | Uint8Array>>;
  readonly includes?: readonly string[];
  /** Edit the manifest text before the author signs it (hand-crafted hostile manifests). */
  readonly editManifest?: (text: string) => string;
}

/** A genuine bundle answer, and the blobs to serve by SHA-256. */
export function bundleAnswer(input: BundleAnswerInput): {
  doc: BundleVersionDocument;
  blobs: Map<string, Buffer>;
  authorManifest: string;
} {
  const { registry, author, namespace, bundleId, version } = input;
  const blobs = new Map<string, Buffer>();
  const entries = Object.entries(input.files)
    .map(([path, content]) => [path, Buffer.from(content)] as const)
    .sort(([a], [b]) => (a < b ? -1 : 1));
  const manifest: BundleManifest = {
    bundle: {
      id: bundleId,
      version,
      createdAt: '2026-01-02T03:04:05Z',
      entrypoint: null,
      description: 'test bundle',
      includes: input.includes ?? [],
    },
    files: new Map(
      entries.map(([path, bytes]) => {
        blobs.set(sha256Hex(bytes), bytes);
        return [path, { sha256: sha256Hex(bytes), inlineSigned: false }];
      }),
    ),
  };
  const text = serializeManifest(manifest);
  const authored = signText(input.editManifest?.(text) ?? text, {
    itemType: 'tool',
    extension: '.yaml',
    signer: author.signer,
    now: NOW,
  });
  const attested = signText(authored.text, {
    itemType: 'tool',
    extension: '.yaml',
    signer: registry.signer,
    provenance: `rye-registry@${namespace}`,
    now: NOW,
  });
  const statement = statementFor(
    {
      kind: 'bundle',
      item_type: null,
      namespace,
      item_id: bundleId,
      version,
      extension: null,
      content_hash: authored.fields.contentHash,
      author_fingerprint: author.signer.fingerprint,
    },
    registry,
  );
  return {
    blobs,
    authorManifest: authored.text,
    doc: {
      kind: 'bundle',
      namespace,
      bundle_id: bundleId,
      version,
      manifest: attested.text,
      author: {
        fingerprint: author.signer.fingerprint,
        public_key: author.publicKeyPem,
        signature: formatSignaturePayload(authored.fields),
      },
      attestation: signStatement(registry.signer, statement),
      files: entries.map(([path, bytes]) => ({
        path,
        sha256: sha256Hex(bytes),
        size: bytes.length,
      })),
      yanked: false,
      published_at: '2026-01-02T03:04:05Z',
    },
  };
}

/** What a scripted route answers. */
export type Reply =
  { status?: number; json: unknown } | { status?: number; bytes: Uint8Array } | { status: number };

export interface FakeRegistry {
  readonly url: string;
  /** Requests seen, as `METHOD /path?query`. */
  readonly seen: string[];
  /** Route table: `METHOD /path` (query ignored) → reply. */
  readonly routes: Map<string, Reply | ((req: IncomingMessage) => Reply)>;
  close(): Promise<void>;
}

const servers: FakeRegistry[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

/** A loopback HTTP server answering from a route table; unknown routes get a 404 error document. */
export async function startFakeRegistry(): Promise<FakeRegistry> {
  const routes: FakeRegistry['routes'] = new Map();
  const seen: string[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push(`${req.method ?? ''} ${req.url ?? ''}`);
      const path = (req.url ?? '').split('?')[0] ?? '';
      const route = routes.get(`${req.method ?? ''} ${path}`);
      const reply: Reply =
        route === undefined
          ? { status: 404, json: { error: { code: 'REGISTRY_NOT_FOUND', message: 'no route' } } }
          : typeof route === 'function'
            ? route(req)
            : route;
      const status = reply.status ?? 200;
      if ('json' in reply) {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(reply.json));
      } else if ('bytes' in reply) {
        res.writeHead(status, { 'content-type': 'application/octet-stream' });
        res.end(Buffer.from(reply.bytes));
      } else {
        res.writeHead(status);
        res.end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const fake: FakeRegistry = {
    url: `http://127.0.0.1:${port}`,
    seen,
    routes,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  servers.push(fake);
  return fake;
}

type VersionDoc = ItemVersionDocument | BundleVersionDocument;

export interface IndexOptions {
  readonly seq?: number;
  /** Default: now, to the second. */
  readonly issuedAt?: Date;
  /** Default: an hour after issuedAt. */
  readonly expiresAt?: Date;
  /** Versions to mark yanked. */
  readonly yanked?: readonly string[];
  /** Edit the index before it is signed (forgeries, inconsistencies). */
  readonly edit?: (index: PackageIndex) => PackageIndex;
}

/** The package of a version document, as the index names it. */
export function packageOf(doc: VersionDoc): {
  kind: 'item' | 'bundle';
  item_type: ItemType | null;
  namespace: string;
  item_id: string;
} {
  return doc.kind === 'item'
    ? { kind: 'item', item_type: doc.item_type, namespace: doc.namespace, item_id: doc.item_id }
    : { kind: 'bundle', item_type: null, namespace: doc.namespace, item_id: doc.bundle_id };
}

/** A signed index listing these versions (all of one package), as a genuine registry signs it. */
export function signedIndexFor(
  registry: TestKey,
  docs: readonly VersionDoc[],
  options: IndexOptions = {},
): { index: string; signature: string } {
  const first = docs[0];
  if (first === undefined) throw new Error('signedIndexFor() needs a version');
  const issued = options.issuedAt ?? new Date();
  const issuedMs = Math.floor(issued.getTime() / 1000) * 1000;
  const versions: IndexEntry[] = docs.map((doc) => ({
    version: doc.version,
    content_hash: (JSON.parse(doc.attestation.statement) as AttestationStatement).content_hash,
    published_at: doc.published_at,
    yanked: options.yanked?.includes(doc.version) ?? false,
  }));
  const index: PackageIndex = {
    rye_index: 1,
    registry_fingerprint: registry.signer.fingerprint,
    ...packageOf(first),
    seq: options.seq ?? 1,
    issued_at: formatTimestamp(new Date(issuedMs)),
    expires_at: formatTimestamp(options.expiresAt ?? new Date(issuedMs + 3_600_000)),
    latest: latestOf(versions),
    versions,
  };
  return signIndex(registry.signer, options.edit?.(index) ?? index);
}

const fakeIndexes = new WeakMap<FakeRegistry, Map<string, unknown>>();

/**
 * Serve `GET /v1/index` on a fake registry: each call sets the signed index
 * of one package (by its query); other packages keep theirs.
 */
export function serveIndex(
  fake: FakeRegistry,
  registry: TestKey,
  docs: readonly VersionDoc[],
  options: IndexOptions = {},
): void {
  const first = docs[0];
  if (first === undefined) throw new Error('serveIndex() needs a version');
  let table = fakeIndexes.get(fake);
  if (table === undefined) {
    const created = new Map<string, unknown>();
    table = created;
    fakeIndexes.set(fake, created);
    fake.routes.set('GET /v1/index', (req) => {
      const q = new URL(req.url ?? '', 'http://x').searchParams;
      const name = `${q.get('kind') ?? ''}:${q.get('item_type') ?? ''}:${q.get('namespace') ?? ''}/${q.get('item_id') ?? ''}`;
      const json = created.get(name);
      return json === undefined
        ? { status: 404, json: { error: { code: 'REGISTRY_NOT_FOUND', message: 'no index' } } }
        : { json };
    });
  }
  const p = packageOf(first);
  table.set(
    `${p.kind}:${p.item_type ?? ''}:${p.namespace}/${p.item_id}`,
    signedIndexFor(registry, docs, options),
  );
}

/** Serve a key, an item document and (for bundles) blobs on a fake registry. */
export function serveKey(fake: FakeRegistry, key: TestKey): void {
  fake.routes.set('GET /.well-known/rye-registry.json', { json: keyDocument(key) });
}

const roots: string[] = [];
afterEach(() => {
  for (const dir of roots.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A fresh project and user space, and a session with `url`. */
export function clientSpaces(): { spaces: Spaces; root: string; env: NodeJS.ProcessEnv } {
  const root = mkdtempSync(join(tmpdir(), 'rye-client-'));
  roots.push(root);
  for (const dir of ['project', 'user', 'system']) mkdirSync(join(root, dir));
  const env = {
    RYE_USER_SPACE: join(root, 'user'),
    RYE_SYSTEM_SPACE: join(root, 'system'),
  };
  return { spaces: resolveSpaces({ project: join(root, 'project'), env }), root, env };
}

export function sessionFor(
  spaces: Spaces,
  url: string,
  env: NodeJS.ProcessEnv = {},
): RegistrySession {
  // The composition root's wiring: a pulled tool is pinned as `rye registry pull` pins it.
  return openSession({ spaces, registry: url, env, prepareToPin });
}

/** Every file under a folder with its bytes (a snapshot to compare trees). */
export function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string, rel: string) => {
    for (const name of readdirSync(d)) {
      const path = join(d, name);
      const r = rel === '' ? name : `${rel}/${name}`;
      if (statSync(path).isDirectory()) {
        out[`${r}/`] = '';
        walk(path, r);
      } else out[r] = readFileSync(path).toString('base64');
    }
  };
  walk(dir, '');
  return out;
}
