import type { Hono, MiddlewareHandler } from 'hono';
import { ITEM_TYPES } from '../../items/index.js';
import { USERNAME_RE, assertRegistryId } from '../names.js';
import { itemAnswer } from './answers.js';
import { requireToken } from './auth.js';
import { choiceOf, readJsonFields } from './body.js';
import type { RegistryEnv, ServerContext } from './context.js';
import { notFound } from './errors.js';
import { ITEM_PUSH_FIELDS, pushItem } from './item-push.js';
import { findVersion } from './versions.js';

/** `POST /v1/items`, `GET /v1/items/:item_type/:namespace/:item_id{.+}?version=`. */
export function addItemRoutes(
  app: Hono<RegistryEnv>,
  ctx: ServerContext,
  json: MiddlewareHandler,
): void {
  app.post('/v1/items', requireToken(ctx.store), json, async (c) => {
    const body = await readJsonFields(c, ITEM_PUSH_FIELDS);
    const { status, document } = await pushItem(ctx, c.get('token'), body);
    return c.json(document, status);
  });

  // The hot path: one indexed row, one blob read (re-hashed), a cached key.
  app.get('/v1/items/:item_type/:namespace/:item_id{.+}', async (c) => {
    const itemType = choiceOf(c.req.param('item_type'), 'item_type', ITEM_TYPES);
    const namespace = c.req.param('namespace');
    if (!USERNAME_RE.test(namespace))
      throw notFound(`Cannot find namespace "${namespace.slice(0, 64)}"`);
    const itemId = c.req.param('item_id');
    assertRegistryId(itemId);
    const key = { kind: 'item', itemType, namespace, itemId } as const;
    const record = await findVersion(ctx.store, key, c.req.query('version'));
    return c.json(await itemAnswer(ctx, record));
  });
}
