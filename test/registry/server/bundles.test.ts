import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createBundle, parseManifest } from '../../../src/bundle/index.js';
import { parsePublicKey, sha256Hex, signText, type Signer } from '../../../src/integrity/index.js';
import { assertStatementSigned, parseStatement } from '../../../src/registry/index.js';
import { makeSigner } from '../../helpers/keys.js';
import { TASK_MANAGER_ID, writeTaskManager } from '../../helpers/task-manager.js';
import { makeTempSpaces } from '../../helpers/temp-space.js';
import {
  expectRefused,
  makeAuthor,
  makeRegistry,
  toolPush,
  type Author,
  type TestRegistry,
} from './fixtures.js';

let registry: TestRegistry;
let alice: Author;
beforeEach(async () => {
  registry = await makeRegistry();
  alice = await makeAuthor(registry, 'alice');
});
afterEach(async () => {
  await registry.close();
});

/** The task-manager bundle signed by `signer`: its manifest text and every listed file's bytes. */
async function taskManagerBundle(
  signer: Signer,
): Promise<{ manifest: string; files: Map<string, Buffer> }> {
  const spaces = makeTempSpaces();
  writeTaskManager(spaces, signer);
  const created = await createBundle({
    spaces,
    bundleId: TASK_MANAGER_ID,
    version: '1.0.0',
    description: 'CRUD task manager',
    includes: ['task-manager'],
    signer,
  });
  const files = new Map<string, Buffer>();
  for (const path of created.manifest.files.keys()) {
    files.set(path, readFileSync(join(spaces.project, path)));
  }
  return { manifest: readFileSync(created.path, 'utf8'), files };
}

const putBlob = (bytes: Buffer, token = alice.token, address = sha256Hex(bytes)) =>
  registry.call('PUT', `/v1/blobs/${address}`, {
    token,
    body: new Uint8Array(bytes),
    headers: { 'content-type': 'application/octet-stream' },
  });

const pushBundle = (manifest: string, token = alice.token, namespace = 'alice') =>
  registry.call('POST', '/v1/bundles', {
    token,
    body: { namespace, bundle_id: TASK_MANAGER_ID, manifest },
  });

describe('blobs', () => {
  it('PUT stores (201), again is 200; HEAD and GET serve the raw bytes', async () => {
    const bytes = Buffer.from([0, 1, 2, 255, 254]);
    const address = sha256Hex(bytes);
    expect((await registry.call('HEAD', `/v1/blobs/${address}`)).status).toBe(404);
    const stored = await putBlob(bytes);
    expect(stored.status).toBe(201);
    expect(stored.json).toEqual({ sha256: address, size: 5 });
    expect((await putBlob(bytes)).status).toBe(200);
    expect((await registry.call('HEAD', `/v1/blobs/${address}`)).status).toBe(200);
    const got = await registry.call('GET', `/v1/blobs/${address}`);
    expect(got.status).toBe(200);
    expect(got.headers.get('content-type')).toBe('application/octet-stream');
    expect(got.bytes.equals(bytes)).toBe(true);
  });

  it('refuses bytes that do not hash to their address (422 REGISTRY_BLOB_HASH_MISMATCH)', async () => {
    const answer = await putBlob(Buffer.from('hello'), alice.token, sha256Hex('other'));
    expectRefused(answer, 422, 'REGISTRY_BLOB_HASH_MISMATCH');
    expect(answer.json.error.message).toContain(sha256Hex('hello'));
  });

  it('refuses bad addresses (400), anonymous uploads (401), unknown blobs (404)', async () => {
    const bytes = Buffer.from('x');
    const upper = sha256Hex(bytes).toUpperCase();
    expectRefused(await putBlob(bytes, alice.token, upper), 400, 'REGISTRY_INVALID_REQUEST');
    expectRefused(
      await registry.call('PUT', `/v1/blobs/${sha256Hex(bytes)}`, { body: new Uint8Array(bytes) }),
      401,
      'REGISTRY_AUTH_REQUIRED',
    );
    expectRefused(
      await registry.call('GET', `/v1/blobs/${sha256Hex('none')}`),
      404,
      'REGISTRY_NOT_FOUND',
    );
  });

  it('refuses a blob over the limit (413 REGISTRY_BODY_TOO_LARGE)', async () => {
    const small = await makeRegistry({ limits: { blobBytes: 1024 } });
    try {
      const author = await makeAuthor(small, 'alice');
      const bytes = Buffer.alloc(2048, 1);
      const answer = await small.call('PUT', `/v1/blobs/${sha256Hex(bytes)}`, {
        token: author.token,
        body: new Uint8Array(bytes),
      });
      expectRefused(answer, 413, 'REGISTRY_BODY_TOO_LARGE');
      expect(await small.store.hasBlob(sha256Hex(bytes))).toBe(false);
    } finally {
      await small.close();
    }
  });
});

describe('POST /v1/bundles and GET /v1/bundles/…', () => {
  it('publishes a bundle whose blobs are uploaded, attests its manifest, and serves it', async () => {
    const { manifest, files } = await taskManagerBundle(alice.signer);
    for (const bytes of files.values()) expect([200, 201]).toContain((await putBlob(bytes)).status);
    const answer = await pushBundle(manifest);
    expect(answer.status).toBe(201);
    const doc = answer.json;
    expect(doc).toMatchObject({
      kind: 'bundle',
      namespace: 'alice',
      bundle_id: TASK_MANAGER_ID,
      version: '1.0.0',
      yanked: false,
    });
    expect(doc.files).toEqual(
      [...files].map(([path, bytes]) => ({ path, sha256: sha256Hex(bytes), size: bytes.length })),
    );
    expect(doc.manifest).toContain('|rye-registry@alice');
    expect(parseManifest(doc.manifest, 'served').bundle.id).toBe(TASK_MANAGER_ID);
    const statement = parseStatement(doc.attestation.statement);
    expect(statement).toMatchObject({ kind: 'bundle', item_type: null, extension: null });
    assertStatementSigned(
      parsePublicKey(registry.key.publicKeyPem).key,
      doc.attestation.statement,
      doc.attestation.signature,
    );

    const pulled = await registry.call('GET', `/v1/bundles/alice/${TASK_MANAGER_ID}`);
    expect(pulled.status).toBe(200);
    expect(pulled.json).toEqual(doc);
    const replay = await pushBundle(manifest);
    expect(replay.status).toBe(200);
    expect(replay.json).toEqual(doc);
  });

  it('refuses a bundle with a listed blob missing (422 REGISTRY_BLOB_MISSING naming the path)', async () => {
    const { manifest, files } = await taskManagerBundle(alice.signer);
    const [skipped] = [...files.keys()].filter((p) => p.endsWith('.png'));
    for (const [path, bytes] of files) if (path !== skipped) await putBlob(bytes);
    const answer = await pushBundle(manifest);
    expectRefused(answer, 422, 'REGISTRY_BLOB_MISSING');
    expect(answer.json.error.message).toContain(skipped);
  });

  it('refuses a manifest signed by an unregistered key (422 REGISTRY_AUTHOR_KEY_UNKNOWN)', async () => {
    const stranger = makeSigner();
    const { manifest, files } = await taskManagerBundle(stranger.signer);
    for (const bytes of files.values()) await putBlob(bytes);
    expectRefused(await pushBundle(manifest), 422, 'REGISTRY_AUTHOR_KEY_UNKNOWN');
  });

  it('refuses an edited manifest (422 REGISTRY_SIGNATURE_INVALID)', async () => {
    const { manifest } = await taskManagerBundle(alice.signer);
    const edited = manifest.replace('CRUD task manager', 'Something else');
    expectRefused(await pushBundle(edited), 422, 'REGISTRY_SIGNATURE_INVALID');
  });

  it("refuses another user's namespace (403) and a bundle id the manifest does not declare (422)", async () => {
    const bob = await makeAuthor(registry, 'bob');
    const { manifest } = await taskManagerBundle(bob.signer);
    expectRefused(await pushBundle(manifest, bob.token, 'alice'), 403, 'REGISTRY_FORBIDDEN');
    const mine = await taskManagerBundle(alice.signer);
    const answer = await registry.call('POST', '/v1/bundles', {
      token: alice.token,
      body: { namespace: 'alice', bundle_id: 'apps/other', manifest: mine.manifest },
    });
    expectRefused(answer, 422, 'BUNDLE_MANIFEST_INVALID');
  });

  it('refuses a signed manifest out of its lane, as every client would (422 BUNDLE_MANIFEST_INVALID)', async () => {
    const manifest = (path: string) =>
      signText(
        `bundle:\n  id: apps/demo\n  version: 1.0.0\n  created_at: '2026-02-11T00:00:00Z'\n  entrypoint: ''\n  description: ''\nfiles:\n  ${path}:\n    sha256: ${'a'.repeat(64)}\n    inline_signed: false\n`,
        { itemType: 'tool', extension: '.yaml', signer: alice.signer },
      ).text;
    for (const path of ['.env', '.ai/tools/apps/other/tool.py', '.ai/tools/apps/demo2/tool.py']) {
      const answer = await registry.call('POST', '/v1/bundles', {
        token: alice.token,
        body: { namespace: 'alice', bundle_id: 'apps/demo', manifest: manifest(path) },
      });
      expectRefused(answer, 422, 'BUNDLE_MANIFEST_INVALID');
    }
  });

  it('refuses text that is not a manifest (422 BUNDLE_MANIFEST_INVALID)', async () => {
    const text = signText('bundle: [1, 2\n', {
      itemType: 'tool',
      extension: '.yaml',
      signer: alice.signer,
    }).text;
    expectRefused(await pushBundle(text), 422, 'BUNDLE_MANIFEST_INVALID');
  });
});

describe('stored blobs are re-hashed on every read', () => {
  it('answers 500 REGISTRY_BLOB_CORRUPT for an item whose blob was tampered with on disk', async () => {
    const pushed = await registry.call('POST', '/v1/items', {
      token: alice.token,
      body: toolPush(alice.signer, 'alice'),
    });
    const content: string = pushed.json.content;
    const address = sha256Hex(Buffer.from(content, 'utf8'));
    const file = join(registry.dataDir, 'blobs', address.slice(0, 2), address);
    writeFileSync(file, content.replace('print("hi")', 'print("pwned")'));
    const pulled = await registry.call('GET', '/v1/items/tool/alice/utils/greet');
    expectRefused(pulled, 500, 'REGISTRY_BLOB_CORRUPT');
    const blob = await registry.call('GET', `/v1/blobs/${address}`);
    expectRefused(blob, 500, 'REGISTRY_BLOB_CORRUPT');
  });
});

describe('bundle versions and yank', () => {
  it('lists and yanks bundle versions (kind=bundle, no item_type)', async () => {
    const { manifest, files } = await taskManagerBundle(alice.signer);
    for (const bytes of files.values()) await putBlob(bytes);
    expect((await pushBundle(manifest)).status).toBe(201);
    const versions = await registry.call(
      'GET',
      `/v1/versions?kind=bundle&namespace=alice&item_id=${TASK_MANAGER_ID}`,
    );
    expect(versions.json.versions.map((v: { version: string }) => v.version)).toEqual(['1.0.0']);
    const yanked = await registry.call('POST', '/v1/yank', {
      token: alice.token,
      body: {
        kind: 'bundle',
        item_type: null,
        namespace: 'alice',
        item_id: TASK_MANAGER_ID,
        version: '1.0.0',
        yanked: true,
      },
    });
    expect(yanked.json).toEqual({ yanked: true });
    const latest = await registry.call('GET', `/v1/bundles/alice/${TASK_MANAGER_ID}`);
    expectRefused(latest, 404, 'REGISTRY_NOT_FOUND');
    const explicit = await registry.call(
      'GET',
      `/v1/bundles/alice/${TASK_MANAGER_ID}?version=1.0.0`,
    );
    expect(explicit.json.yanked).toBe(true);
    const found = await registry.call('GET', '/v1/search?kind=bundle');
    expect(found.json.results).toEqual([]);
  });
});
