import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { MAX_ITEM_BYTES } from '../../platform/index.js';
import type { RegistryKeyDocument } from '../wire.js';
import { addAccountRoutes } from './accounts.js';
import { AuthorKeys } from './author-keys.js';
import { addBlobRoutes } from './blobs.js';
import { addBundleRoutes } from './bundles.js';
import type { LogFn, RegistryEnv, RegistryLimits, ServerContext } from './context.js';
import { errorBody, tooLarge, wireErrorOf } from './errors.js';
import { AccountQuotas } from './quota.js';
import { jsonUploadGate } from './upload-gate.js';
import { addItemRoutes } from './items.js';
import { addKeyRoutes } from './keys.js';
import { addQueryRoutes } from './queries.js';
import type { RegistryKey } from './registry-key.js';
import { IndexSigner, type IndexOptions } from './signed-index.js';
import { jsonLines, requestLog } from './request-log.js';
import type { RegistryStore } from './store/index.js';

const MiB = 1024 * 1024;

export const DEFAULT_LIMITS: RegistryLimits = {
  jsonBytes: 12 * MiB,
  blobBytes: 64 * MiB,
  itemBytes: MAX_ITEM_BYTES,
  manifestBytes: 2 * MiB,
  accountBytes: 1024 * MiB,
  // The client transfers 8 blobs at once (TRANSFER_CONCURRENCY): one push never trips it.
  uploadsPerAccount: 8,
  uploadBytesInFlight: 512 * MiB,
  authAttemptsPerMinute: 30,
};

/** JSON bodies other than pushes (accounts, keys, yank, search) are small. */
const SMALL_JSON_BYTES = 64 * 1024;

/**
 * A bundle push's body: the manifest JSON-escaped (a canonical manifest grows
 * by its newlines and quotes, far less than twice) plus the other fields.
 */
const bundleBodyBytes = (limits: RegistryLimits): number =>
  Math.min(limits.jsonBytes, 2 * limits.manifestBytes + SMALL_JSON_BYTES);

export interface RegistryAppOptions {
  readonly store: RegistryStore;
  readonly key: RegistryKey;
  readonly limits?: Partial<RegistryLimits>;
  /** Structured log sink; default JSON lines on stderr. */
  readonly log?: LogFn;
  /** The clock (tests pin it). */
  readonly now?: () => Date;
  /** The signed package index (`GET /v1/index`): its validity. */
  readonly index?: IndexOptions;
}

/**
 * The registry as a Hono app over an injected store and key: exactly the
 * endpoints of protocol v1 (src/registry/README.md). Every failure answers
 * `{error:{code,message}}` with the status its code maps to; anything
 * unexpected is 500 REGISTRY_INTERNAL, logged but not told.
 */
export function createRegistryApp(options: RegistryAppOptions): Hono<RegistryEnv> {
  const limits: RegistryLimits = { ...DEFAULT_LIMITS, ...options.limits };
  const log = options.log ?? jsonLines((line) => process.stderr.write(line));
  const ctx: ServerContext = {
    store: options.store,
    key: options.key,
    limits,
    authorKeys: new AuthorKeys(options.store),
    quotas: new AccountQuotas(options.store, limits),
    now: options.now ?? (() => new Date()),
    log,
  };
  const limit = (bytes: number, what: string) =>
    bodyLimit({
      maxSize: bytes,
      onError: () => {
        throw tooLarge(what, bytes);
      },
    });
  const json = limit(Math.min(limits.jsonBytes, SMALL_JSON_BYTES), 'the request body');

  const app = new Hono<RegistryEnv>();
  app.use(requestLog(log));
  app.onError((error, c) => {
    const wire = wireErrorOf(error);
    c.set('errorCode', wire.body.error.code);
    if (wire.internal !== null) {
      log({
        time: new Date().toISOString(),
        level: 'error',
        msg: 'internal error',
        error: wire.internal,
      });
    }
    return c.json(wire.body, wire.status);
  });
  app.notFound((c) => {
    c.set('errorCode', 'REGISTRY_NOT_FOUND');
    return c.json(
      errorBody(
        'REGISTRY_NOT_FOUND',
        `Cannot ${c.req.method} ${c.req.path.slice(0, 200)}: no such endpoint`,
      ),
      404,
    );
  });

  const health = JSON.stringify({ status: 'ok', store: options.store.backend });
  app.get('/health', (c) => c.body(health, 200, { 'content-type': 'application/json' }));
  const keyDocument: RegistryKeyDocument = {
    protocol: 1,
    algorithm: 'ed25519',
    public_key: options.key.publicKeyPem,
    fingerprint: options.key.fingerprint,
  };
  app.get('/.well-known/rye-registry.json', (c) => c.json(keyDocument));

  addAccountRoutes(app, ctx, json);
  addKeyRoutes(app, ctx, json);
  // Pushes and uploads pass the upload gate (size, slots, server budget) before any byte is read.
  addItemRoutes(app, ctx, jsonUploadGate(ctx, limits.jsonBytes, 'the request body'));
  addBlobRoutes(app, ctx);
  addBundleRoutes(app, ctx, jsonUploadGate(ctx, bundleBodyBytes(limits), 'the request body'));
  addQueryRoutes(app, ctx, json, new IndexSigner(ctx, options.index));
  return app;
}
