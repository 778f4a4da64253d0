import type { Hono, MiddlewareHandler } from 'hono';
import { requireToken } from './auth.js';
import type { RegistryEnv, ServerContext } from './context.js';
import { invalidRequest, notFound } from './errors.js';

const ADDRESS_RE = /^[0-9a-f]{64}$/;

/** `PUT|HEAD|GET /v1/blobs/:sha256`: content-addressed raw bytes. */
export function addBlobRoutes(
  app: Hono<RegistryEnv>,
  ctx: ServerContext,
  limit: MiddlewareHandler,
): void {
  const { store } = ctx;
  const address = (value: string): string => {
    if (!ADDRESS_RE.test(value)) {
      throw invalidRequest('Cannot use the blob address: it must be 64 lowercase hex characters');
    }
    return value;
  };

  app.put('/v1/blobs/:sha256', requireToken(store), limit, async (c) => {
    const expected = address(c.req.param('sha256'));
    const bytes = Buffer.from(await c.req.arrayBuffer());
    const existed = await store.hasBlob(expected);
    // The store hashes the bytes against their address (REGISTRY_BLOB_HASH_MISMATCH),
    // existing blob or not: one hash per upload.
    await store.putBlob(expected, bytes);
    return c.json({ sha256: expected, size: bytes.length }, existed ? 200 : 201);
  });

  app.on('HEAD', '/v1/blobs/:sha256', async (c) => {
    const found = await store.hasBlob(address(c.req.param('sha256')));
    return c.body(null, found ? 200 : 404);
  });

  app.get('/v1/blobs/:sha256', async (c) => {
    const sha256 = address(c.req.param('sha256'));
    const bytes = await store.getBlob(sha256);
    if (bytes === null) throw notFound(`Cannot find blob ${sha256}`);
    return c.body(new Uint8Array(bytes), 200, { 'content-type': 'application/octet-stream' });
  });
}
