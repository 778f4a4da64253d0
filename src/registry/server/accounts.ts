import type { Hono, MiddlewareHandler } from 'hono';
import { RyeError } from '../../errors/index.js';
import {
  formatTimestamp,
  hashPassword,
  newApiToken,
  verifyPassword,
} from '../../integrity/index.js';
import { USERNAME_RE } from '../names.js';
import type { SessionDocument } from '../wire.js';
import { AttemptLimiter, limitAttempts } from './attempt-limit.js';
import { requireToken } from './auth.js';
import { readJsonFields, stringField } from './body.js';
import type { RegistryEnv, ServerContext } from './context.js';
import { invalidRequest, notFound } from './errors.js';

const CREDENTIALS = ['username', 'password'] as const;
const MIN_PASSWORD = 8;
const MAX_PASSWORD = 1024;
const TOKEN_ID_RE = /^[0-9a-f]{16}$/;

/** `POST /v1/accounts`, `POST /v1/sessions`, `DELETE /v1/tokens/…`. */
export function addAccountRoutes(
  app: Hono<RegistryEnv>,
  ctx: ServerContext,
  json: MiddlewareHandler,
): void {
  const { store } = ctx;
  // Log-in for an unknown user still runs scrypt, against this hash, so the
  // answer time does not tell which usernames exist.
  const decoy = hashPassword('decoy password, never matches');
  const attempts = limitAttempts(new AttemptLimiter(ctx.limits.authAttemptsPerMinute, ctx.now));

  const session = async (accountId: number, username: string): Promise<SessionDocument> => {
    const token = newApiToken();
    await store.createToken(accountId, token.tokenId, token.hash, formatTimestamp(ctx.now()));
    return { username, token: token.secret, token_id: token.tokenId };
  };

  app.post('/v1/accounts', attempts, json, async (c) => {
    const body = await readJsonFields(c, CREDENTIALS);
    const username = stringField(body, 'username', 39);
    if (!USERNAME_RE.test(username)) {
      throw invalidRequest(
        'Cannot create the account: usernames are 2-39 characters [a-z0-9_-], starting with a letter or digit',
      );
    }
    const password = stringField(body, 'password', MAX_PASSWORD, MIN_PASSWORD);
    const hash = await hashPassword(password);
    const account = await store.createAccount(username, hash, formatTimestamp(ctx.now()));
    return c.json(await session(account.id, account.username), 201);
  });

  app.post('/v1/sessions', attempts, json, async (c) => {
    const body = await readJsonFields(c, CREDENTIALS);
    const username = stringField(body, 'username', 39);
    const password = stringField(body, 'password', MAX_PASSWORD);
    const account = USERNAME_RE.test(username) ? await store.findAccount(username) : null;
    const ok = await verifyPassword(password, account?.passwordHash ?? (await decoy));
    if (account === null || !ok) {
      throw new RyeError(
        'REGISTRY_AUTH_INVALID',
        'Cannot log in: unknown username or wrong password',
        {},
      );
    }
    return c.json(await session(account.id, account.username), 201);
  });

  const auth = requireToken(store);
  app.delete('/v1/tokens/current', auth, async (c) => {
    const token = c.get('token');
    await store.revokeToken(token.accountId, token.tokenId, formatTimestamp(ctx.now()));
    return c.body(null, 204);
  });

  app.delete('/v1/tokens/:token_id', auth, async (c) => {
    const token = c.get('token');
    const tokenId = c.req.param('token_id');
    const revoked =
      TOKEN_ID_RE.test(tokenId) &&
      (await store.revokeToken(token.accountId, tokenId, formatTimestamp(ctx.now())));
    if (!revoked)
      throw notFound(`Cannot revoke token ${tokenId.slice(0, 32)}: you have no such token`);
    return c.body(null, 204);
  });
}
