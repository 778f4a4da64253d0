import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { RegistryEnv, ServerContext } from './context.js';
import { invalidRequest, tooLarge } from './errors.js';
import type { Release } from './quota.js';

const RETRY_AFTER_SECONDS = 1;

/**
 * The body size a request declares (Content-Length), or undefined when it
 * declares none (chunked). Read before any byte of the body is.
 * @throws RyeError REGISTRY_INVALID_REQUEST for a malformed header
 */
export function declaredLength(c: Context): number | undefined {
  const header = c.req.header('content-length');
  if (header === undefined) return undefined;
  if (!/^\d{1,15}$/.test(header)) {
    throw invalidRequest('Cannot read the request: Content-Length is not a byte count');
  }
  return Number(header);
}

/**
 * The gate every upload (push or blob) passes before its body is read, in
 * this order: the declared size against the route's cap (413), one of the
 * account's upload slots (429), then that many bytes of the server-wide
 * upload budget (503; the cap itself when no size is declared). Both are
 * released when the request ends, however it ends. Goes after `requireToken`.
 *
 * @throws RyeError REGISTRY_BODY_TOO_LARGE, REGISTRY_TOO_MANY_UPLOADS, REGISTRY_BUSY,
 *   REGISTRY_INVALID_REQUEST
 */
export function uploadGate(
  ctx: ServerContext,
  maxBytes: number,
  what: string,
): MiddlewareHandler<RegistryEnv> {
  return async (c, next) => {
    const declared = declaredLength(c);
    if (declared !== undefined && declared > maxBytes) throw tooLarge(what, maxBytes);
    const releases: Release[] = [];
    try {
      releases.push(ctx.quotas.enter(c.get('token')));
      releases.push(ctx.quotas.hold(declared ?? maxBytes));
    } catch (error) {
      // Both refusals pass as soon as uploads in progress end.
      c.header('retry-after', String(RETRY_AFTER_SECONDS));
      for (const release of releases) release();
      throw error;
    }
    try {
      await next();
    } finally {
      for (const release of releases) release();
    }
  };
}

/**
 * {@link uploadGate}, then Hono's streaming body limit: for JSON pushes, whose
 * handlers read the body themselves.
 */
export function jsonUploadGate(
  ctx: ServerContext,
  maxBytes: number,
  what: string,
): MiddlewareHandler<RegistryEnv> {
  const gate = uploadGate(ctx, maxBytes, what);
  const limit = bodyLimit({
    maxSize: maxBytes,
    onError: () => {
      throw tooLarge(what, maxBytes);
    },
  });
  return (c, next) =>
    gate(c, async () => {
      await limit(c, next);
    });
}
