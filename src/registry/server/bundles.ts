import type { Hono, MiddlewareHandler } from 'hono';
import { USERNAME_RE, assertRegistryId } from '../names.js';
import { bundleAnswer } from './answers.js';
import { requireToken } from './auth.js';
import { readJsonFields } from './body.js';
import { BUNDLE_PUSH_FIELDS, pushBundle } from './bundle-push.js';
import type { RegistryEnv, ServerContext } from './context.js';
import { notFound } from './errors.js';
import { findVersion } from './versions.js';

/** `POST /v1/bundles`, `GET /v1/bundles/:namespace/:bundle_id{.+}?version=`. */
export function addBundleRoutes(
  app: Hono<RegistryEnv>,
  ctx: ServerContext,
  json: MiddlewareHandler,
): void {
  app.post('/v1/bundles', requireToken(ctx.store), json, async (c) => {
    const body = await readJsonFields(c, BUNDLE_PUSH_FIELDS);
    const { status, document } = await pushBundle(ctx, c.get('token'), body);
    return c.json(document, status);
  });

  app.get('/v1/bundles/:namespace/:bundle_id{.+}', async (c) => {
    const namespace = c.req.param('namespace');
    if (!USERNAME_RE.test(namespace)) {
      throw notFound(`Cannot find namespace "${namespace.slice(0, 64)}"`);
    }
    const bundleId = c.req.param('bundle_id');
    assertRegistryId(bundleId);
    const key = { kind: 'bundle', itemType: null, namespace, itemId: bundleId } as const;
    const record = await findVersion(ctx.store, key, c.req.query('version'));
    return c.json(await bundleAnswer(ctx, record));
  });
}
