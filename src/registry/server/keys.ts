import type { Hono, MiddlewareHandler } from 'hono';
import { formatTimestamp, parsePublicKey } from '../../integrity/index.js';
import type { WhoamiDocument } from '../wire.js';
import { requireToken } from './auth.js';
import { readJsonFields, stringField } from './body.js';
import type { RegistryEnv, ServerContext } from './context.js';

/** An SPKI PEM of an Ed25519 key is ~113 bytes; this leaves room for comments and CRLFs. */
const MAX_PEM_LENGTH = 4096;

/** `GET /v1/whoami`, `POST /v1/keys`. */
export function addKeyRoutes(
  app: Hono<RegistryEnv>,
  ctx: ServerContext,
  json: MiddlewareHandler,
): void {
  const { store } = ctx;
  const auth = requireToken(store);

  app.get('/v1/whoami', auth, async (c) => {
    const token = c.get('token');
    const keys = await store.listKeys(token.accountId);
    const document: WhoamiDocument = {
      username: token.username,
      token_id: token.tokenId,
      keys: keys.map((k) => ({ fingerprint: k.fingerprint, added_at: k.addedAt })),
    };
    return c.json(document);
  });

  app.post('/v1/keys', auth, json, async (c) => {
    const token = c.get('token');
    const body = await readJsonFields(c, ['public_key']);
    const info = parsePublicKey(stringField(body, 'public_key', MAX_PEM_LENGTH));
    const outcome = await store.addKey(
      token.accountId,
      info.fingerprint,
      info.publicKeyPem,
      formatTimestamp(ctx.now()),
    );
    ctx.authorKeys.remember(info.fingerprint, info.publicKeyPem);
    return c.json({ fingerprint: info.fingerprint }, outcome === 'added' ? 201 : 200);
  });
}
