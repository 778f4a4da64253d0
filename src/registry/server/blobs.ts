import type { Hono } from 'hono';
import { requireToken } from './auth.js';
import { readBlobBody } from './blob-body.js';
import type { RegistryEnv, ServerContext } from './context.js';
import { invalidRequest, notFound } from './errors.js';
import { MIN_BLOB_CHARGE } from './quota.js';
import { declaredLength, uploadGate } from './upload-gate.js';

const ADDRESS_RE = /^[0-9a-f]{64}$/;

/**
 * `PUT|HEAD|GET /v1/blobs/:sha256`: content-addressed raw bytes. An upload
 * passes the upload gate, then, for a blob not stored yet, claims its
 * declared size (or the cap) from the account's quota before reading a byte;
 * the body is hashed as it streams in, and a new blob stays charged to the
 * account until a bundle of it publishes it.
 *
 * @throws RyeError REGISTRY_BODY_TOO_LARGE (413), REGISTRY_TOO_MANY_UPLOADS (429),
 *   REGISTRY_BUSY (503), REGISTRY_QUOTA_EXCEEDED (507), REGISTRY_BLOB_HASH_MISMATCH,
 *   REGISTRY_INVALID_REQUEST, REGISTRY_NOT_FOUND
 */
export function addBlobRoutes(app: Hono<RegistryEnv>, ctx: ServerContext): void {
  const { store } = ctx;
  const max = ctx.limits.blobBytes;
  const address = (value: string): string => {
    if (!ADDRESS_RE.test(value)) {
      throw invalidRequest('Cannot use the blob address: it must be 64 lowercase hex characters');
    }
    return value;
  };

  app.put('/v1/blobs/:sha256', requireToken(store), uploadGate(ctx, max, 'the blob'), async (c) => {
    const expected = address(c.req.param('sha256'));
    const token = c.get('token');
    const existed = await store.hasBlob(expected);
    // A stored blob costs nothing more; a new one is claimed at its declared size first.
    const release = existed
      ? () => undefined
      : await ctx.quotas.claim(
          token,
          Math.max(declaredLength(c) ?? max, MIN_BLOB_CHARGE),
          `blob ${expected}`,
        );
    try {
      // Hashed as it streams in (REGISTRY_BLOB_HASH_MISMATCH), existing blob or not;
      // the store checks the address once more before it writes.
      const bytes = await readBlobBody(c, expected, max);
      await store.putBlob(expected, bytes);
      if (!existed) ctx.quotas.keepPending(token, expected, bytes.length);
      return c.json({ sha256: expected, size: bytes.length }, existed ? 200 : 201);
    } finally {
      release();
    }
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
