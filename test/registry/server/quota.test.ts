import { afterEach, describe, expect, it } from 'vitest';
import { sha256Hex, signText } from '../../../src/integrity/index.js';
import { MIN_BLOB_CHARGE, PROVENANCE_ALLOWANCE } from '../../../src/registry/server/quota.js';
import { PYTHON_TOOL } from '../../helpers/items.js';
import { makeSigner } from '../../helpers/keys.js';
import {
  expectRefused,
  makeAuthor,
  makeRegistry,
  toolPush,
  type Answer,
  type TestRegistry,
} from './fixtures.js';

const open: TestRegistry[] = [];
afterEach(async () => {
  for (const registry of open.splice(0)) await registry.close();
});

async function registryWith(limits: Parameters<typeof makeRegistry>[0]) {
  const registry = await makeRegistry(limits);
  open.push(registry);
  return registry;
}

/**
 * A request body that records whether the server pulled any of it and, once
 * pulled, waits for `finish()` before sending its bytes: an upload in progress.
 */
function watchedBody(bytes: Buffer) {
  let pulled = false;
  let finish = (): void => undefined;
  const finished = new Promise<void>((resolve) => (finish = resolve));
  const stream = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        pulled = true;
        await finished;
        controller.enqueue(new Uint8Array(bytes));
        controller.close();
      },
      // Pulled only when the server reads, never ahead of it.
    },
    { highWaterMark: 0 },
  );
  return { stream, pulled: () => pulled, finish };
}

async function put(
  registry: TestRegistry,
  token: string,
  body: ReadableStream<Uint8Array> | Uint8Array,
  sha256: string,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const init = {
    method: 'PUT',
    // Bytes are sent with their length, as the client does; streams declare none unless told.
    headers: {
      authorization: `Bearer ${token}`,
      ...(body instanceof Uint8Array ? { 'content-length': String(body.length) } : {}),
      ...headers,
    },
    body,
    duplex: 'half', // undici needs it for a stream body
  };
  const response = await registry.app.request(`/v1/blobs/${sha256}`, init as RequestInit);
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    bytes: Buffer.from(text),
    json: text === '' ? undefined : (JSON.parse(text) as unknown),
  };
}

describe('per-account quotas', () => {
  it('refuses a blob that would pass the stored-byte quota (507) before reading it, and another account is unaffected', async () => {
    const registry = await registryWith({ limits: { accountBytes: 100_000 } });
    const alice = await makeAuthor(registry, 'alice');
    const bob = await makeAuthor(registry, 'bob');
    const first = Buffer.alloc(60_000, 1);
    expect((await put(registry, alice.token, first, sha256Hex(first))).status).toBe(201);

    const second = Buffer.alloc(60_000, 2);
    const body = watchedBody(second);
    const refused = await put(registry, alice.token, body.stream, sha256Hex(second), {
      'content-length': String(second.length),
    });
    expectRefused(refused, 507, 'REGISTRY_QUOTA_EXCEEDED');
    expect(body.pulled()).toBe(false);
    expect(await registry.store.hasBlob(sha256Hex(second))).toBe(false);

    // Bob's quota is his own; a blob already stored costs Alice nothing more.
    expect((await put(registry, bob.token, second, sha256Hex(second))).status).toBe(201);
    expect((await put(registry, alice.token, first, sha256Hex(first))).status).toBe(200);
    expect((await put(registry, alice.token, second, sha256Hex(second))).status).toBe(200);
  });

  it('counts an undeclared upload at the blob cap, and tiny blobs at least MIN_BLOB_CHARGE', async () => {
    const registry = await registryWith({
      limits: { accountBytes: 3 * MIN_BLOB_CHARGE, blobBytes: 2 * MIN_BLOB_CHARGE },
    });
    const alice = await makeAuthor(registry, 'alice');
    const tiny = (i: number) => Buffer.from(`tiny ${i}`);
    // Declared: each claimed and charged at 4 KiB, not its 6 bytes.
    expect((await put(registry, alice.token, tiny(1), sha256Hex(tiny(1)))).status).toBe(201);
    expect((await put(registry, alice.token, tiny(2), sha256Hex(tiny(2)))).status).toBe(201);
    // Undeclared: claimed at the 8 KiB cap; 8 KiB charged + 8 KiB > 12 KiB.
    const undeclared = watchedBody(tiny(3));
    undeclared.finish();
    const third = await put(registry, alice.token, undeclared.stream, sha256Hex(tiny(3)));
    expectRefused(third, 507, 'REGISTRY_QUOTA_EXCEEDED');
    expect(undeclared.pulled()).toBe(false);
    expect(await registry.store.hasBlob(sha256Hex(tiny(3)))).toBe(false);
    // Declared, it fits exactly.
    expect((await put(registry, alice.token, tiny(3), sha256Hex(tiny(3)))).status).toBe(201);
  });

  it('refuses an item push that would pass the quota (507), and counts published versions', async () => {
    // Room for one push (its content and provenance) and a little more, not for two.
    const size = Buffer.byteLength(toolPush(makeSigner('any').signer, 'alice').content!);
    const quota = size + PROVENANCE_ALLOWANCE + 100;
    const registry = await registryWith({ limits: { accountBytes: quota } });
    const alice = await makeAuthor(registry, 'alice');
    const small = toolPush(alice.signer, 'alice', { version: '1.0.0' });
    expect(
      (await registry.call('POST', '/v1/items', { token: alice.token, body: small })).status,
    ).toBe(201);
    const next = toolPush(alice.signer, 'alice', { version: '1.0.1', extra: '# pad\n' });
    const refused = await registry.call('POST', '/v1/items', { token: alice.token, body: next });
    expectRefused(refused, 507, 'REGISTRY_QUOTA_EXCEEDED');
    expect(refused.json.error.message).toMatch(
      new RegExp(
        `^Cannot store alice/utils/greet\\.py: account alice uses \\d+ of its ${quota} bytes`,
      ),
    );
    const versions = await registry.call(
      'GET',
      '/v1/versions?kind=item&item_type=tool&namespace=alice&item_id=utils/greet',
    );
    expect(versions.json.versions.map((v: { version: string }) => v.version)).toEqual(['1.0.0']);
  });
});

describe('uploads in progress', () => {
  it('refuses an account past its uploads in progress (429, retry-after) while others upload, and frees the slots when they end', async () => {
    const registry = await registryWith({ limits: { uploadsPerAccount: 2 } });
    const alice = await makeAuthor(registry, 'alice');
    const bob = await makeAuthor(registry, 'bob');
    const blobs = [0, 1, 2].map((i) => Buffer.alloc(1000, i));
    const bodies = blobs.slice(0, 2).map(watchedBody);
    const running = bodies.map((body, i) =>
      put(registry, alice.token, body.stream, sha256Hex(blobs[i]!)),
    );
    await expect.poll(() => bodies.every((body) => body.pulled())).toBe(true);

    const third = watchedBody(blobs[2]!);
    const refused = await put(registry, alice.token, third.stream, sha256Hex(blobs[2]!));
    expectRefused(refused, 429, 'REGISTRY_TOO_MANY_UPLOADS');
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(third.pulled()).toBe(false);
    // A push counts as an upload too.
    const push = await registry.call('POST', '/v1/items', {
      token: alice.token,
      body: toolPush(alice.signer, 'alice'),
    });
    expectRefused(push, 429, 'REGISTRY_TOO_MANY_UPLOADS');
    expect((await put(registry, bob.token, blobs[2]!, sha256Hex(blobs[2]!))).status).toBe(201);
    expect((await registry.call('GET', '/health')).status).toBe(200);

    for (const body of bodies) body.finish();
    expect((await Promise.all(running)).map((a) => a.status)).toEqual([201, 201]);
    expect((await put(registry, alice.token, blobs[2]!, sha256Hex(blobs[2]!))).status).toBe(200);
  });

  it('refuses an upload past the server-wide byte budget (503) before reading it', async () => {
    const registry = await registryWith({ limits: { uploadBytesInFlight: 5000 } });
    const alice = await makeAuthor(registry, 'alice');
    const bob = await makeAuthor(registry, 'bob');
    const held = Buffer.alloc(4000, 1);
    const holding = watchedBody(held);
    const running = put(registry, alice.token, holding.stream, sha256Hex(held), {
      'content-length': String(held.length),
    });
    await expect.poll(() => holding.pulled()).toBe(true);
    const other = Buffer.alloc(2000, 2);
    const body = watchedBody(other);
    const refused = await put(registry, bob.token, body.stream, sha256Hex(other), {
      'content-length': String(other.length),
    });
    expectRefused(refused, 503, 'REGISTRY_BUSY');
    expect(body.pulled()).toBe(false);
    holding.finish();
    expect((await running).status).toBe(201);
    expect((await put(registry, bob.token, other, sha256Hex(other))).status).toBe(201);
  });

  it('refuses a declared size over the blob cap (413) without reading, and a stream that passes it', async () => {
    const registry = await registryWith({ limits: { blobBytes: 1024 } });
    const alice = await makeAuthor(registry, 'alice');
    const bytes = Buffer.alloc(2048, 1);
    const body = watchedBody(bytes);
    const declared = await put(registry, alice.token, body.stream, sha256Hex(bytes), {
      'content-length': String(bytes.length),
    });
    expectRefused(declared, 413, 'REGISTRY_BODY_TOO_LARGE');
    expect(body.pulled()).toBe(false);
    const undeclared = watchedBody(bytes);
    undeclared.finish();
    const streamed = await put(registry, alice.token, undeclared.stream, sha256Hex(bytes));
    expectRefused(streamed, 413, 'REGISTRY_BODY_TOO_LARGE');
    expect(await registry.store.hasBlob(sha256Hex(bytes))).toBe(false);
  });
});

describe('signature before parsing', () => {
  /** A Python tool whose CONFIG_SCHEMA is ~1.4 MB of nested lists: the metadata parser refuses it. */
  const hostile = (): string =>
    PYTHON_TOOL('utils', `CONFIG_SCHEMA = ${'['.repeat(700_000)}${']'.repeat(700_000)}`);

  it('refuses a hostile item signed by an unregistered key, or unsigned, on its signature, never reaching the parser', async () => {
    const registry = await registryWith({});
    const alice = await makeAuthor(registry, 'alice');
    const body = (content: string) => ({ ...toolPush(alice.signer, 'alice'), content });
    const stranger = makeSigner('mallory').signer;
    const foreign = signText(hostile(), { itemType: 'tool', extension: '.py', signer: stranger });
    expectRefused(
      await registry.call('POST', '/v1/items', { token: alice.token, body: body(foreign.text) }),
      422,
      'REGISTRY_AUTHOR_KEY_UNKNOWN',
    );
    expectRefused(
      await registry.call('POST', '/v1/items', { token: alice.token, body: body(hostile()) }),
      422,
      'REGISTRY_SIGNATURE_INVALID',
    );
    // Signed by Alice's own key, it reaches the parser, which refuses it.
    const own = signText(hostile(), { itemType: 'tool', extension: '.py', signer: alice.signer });
    expectRefused(
      await registry.call('POST', '/v1/items', { token: alice.token, body: body(own.text) }),
      422,
      'PARSE_UNSAFE_CONTENT',
    );
  });

  it('refuses a body that is not a flat JSON object before JSON.parse (400)', async () => {
    const registry = await registryWith({});
    const alice = await makeAuthor(registry, 'alice');
    const nested = `{"content": ${'['.repeat(1_000_000)}${']'.repeat(1_000_000)}}`;
    const answer = await registry.call('POST', '/v1/items', { token: alice.token, body: nested });
    expectRefused(answer, 400, 'REGISTRY_INVALID_REQUEST');
    expect(answer.json.error.message).toContain('it holds an array');
  });
});

describe.each(['sqlite', 'postgres'] as const)('store accounting (%s)', (backend) => {
  it('namespaceBytes() sums the published blobs of a namespace; blobSizes() reads sizes without bytes', async () => {
    const registry = await registryWith({ backend });
    const alice = await makeAuthor(registry, 'alice');
    expect(await registry.store.namespaceBytes('alice')).toBe(0);
    const pushed = await registry.call('POST', '/v1/items', {
      token: alice.token,
      body: toolPush(alice.signer, 'alice'),
    });
    expect(pushed.status).toBe(201);
    const key = {
      kind: 'item',
      itemType: 'tool',
      namespace: 'alice',
      itemId: 'utils/greet',
    } as const;
    const record = await registry.store.getVersion(key, '1.0.0');
    expect(await registry.store.namespaceBytes('alice')).toBe(record!.size);
    expect(await registry.store.namespaceBytes('bob')).toBe(0);

    const blob = Buffer.alloc(1234, 7);
    expect((await put(registry, alice.token, blob, sha256Hex(blob))).status).toBe(201);
    const sizes = await registry.store.blobSizes([sha256Hex(blob), 'f'.repeat(64), 'not hex']);
    expect([...sizes]).toEqual([[sha256Hex(blob), 1234]]);
  });
});
