import type { MiddlewareHandler } from 'hono';
import { RyeError } from '../../errors/index.js';
import { apiTokenHash } from '../../integrity/index.js';
import type { RegistryEnv } from './context.js';
import { forbidden } from './errors.js';
import type { RegistryStore, TokenRecord } from './store/index.js';

/** `rye_` + 32 bytes base64url: anything else cannot be a token, and never reaches the store. */
const TOKEN_RE = /^rye_[A-Za-z0-9_-]{43}$/;
const BEARER_RE = /^Bearer +(\S+) *$/i;

/**
 * Require `authorization: Bearer <token>` naming a valid token; sets
 * `c.var.token`. The secret is looked up by its SHA-256 only.
 *
 * @throws RyeError REGISTRY_AUTH_REQUIRED (no header), REGISTRY_AUTH_INVALID
 *   (malformed, unknown or revoked token)
 */
export function requireToken(store: RegistryStore): MiddlewareHandler<RegistryEnv> {
  return async (c, next) => {
    const header = c.req.header('authorization');
    if (header === undefined || header.trim() === '') {
      throw new RyeError(
        'REGISTRY_AUTH_REQUIRED',
        'Cannot do this anonymously: send authorization: Bearer <token>',
        {},
      );
    }
    const secret = BEARER_RE.exec(header)?.[1];
    const token =
      secret !== undefined && TOKEN_RE.test(secret)
        ? await store.findToken(apiTokenHash(secret))
        : null;
    if (token === null || token.revokedAt !== null) {
      throw new RyeError(
        'REGISTRY_AUTH_INVALID',
        'Cannot authenticate: the token is unknown or revoked; log in again',
        {},
      );
    }
    c.set('token', token);
    await next();
  };
}

/**
 * Only the namespace's owner may publish or yank in it.
 * @throws RyeError REGISTRY_FORBIDDEN
 */
export function assertOwner(token: TokenRecord, namespace: string): void {
  if (namespace !== token.username) {
    throw forbidden(
      `Cannot write to namespace "${namespace.slice(0, 64)}": you are logged in as ${token.username}`,
    );
  }
}
