import type { Context, Hono, MiddlewareHandler } from 'hono';
import { ITEM_TYPES } from '../../items/index.js';
import { USERNAME_RE, assertVersion } from '../names.js';
import type { SearchDocument, VersionsDocument } from '../wire.js';
import { assertOwner, requireToken } from './auth.js';
import { booleanField, choiceOf, readJsonFields, stringField } from './body.js';
import type { RegistryEnv, ServerContext } from './context.js';
import { invalidRequest, notFound } from './errors.js';
import { parsePackageKey } from './package-key.js';
import type { IndexSigner } from './signed-index.js';
import { MAX_SEARCH_LIMIT, type PackageKey } from './store/index.js';

const DEFAULT_LIMIT = 50;
const MAX_QUERY_TEXT = 200;

/** `GET /v1/index`, `GET /v1/versions`, `POST /v1/yank`, `GET /v1/search`. */
export function addQueryRoutes(
  app: Hono<RegistryEnv>,
  ctx: ServerContext,
  json: MiddlewareHandler,
  index: IndexSigner,
): void {
  const { store } = ctx;

  app.get('/v1/index', async (c) => {
    const key = packageKeyOf(c);
    const body = await index.answer(key);
    if (body === null) throw notFound(`Cannot find ${key.namespace}/${key.itemId}`);
    return c.body(body, 200, { 'content-type': 'application/json' });
  });

  // Unsigned, kept for protocol v1 clients; the client reads the signed index.
  app.get('/v1/versions', async (c) => {
    const key = packageKeyOf(c);
    const versions = await store.listVersions(key);
    if (versions.length === 0) throw notFound(`Cannot find ${key.namespace}/${key.itemId}`);
    const document: VersionsDocument = {
      versions: versions.map((v) => ({
        version: v.version,
        yanked: v.yanked,
        published_at: v.publishedAt,
        content_hash: v.contentHash,
      })),
    };
    return c.json(document);
  });

  app.post('/v1/yank', requireToken(store), json, async (c) => {
    const body = await readJsonFields(c, [
      'kind',
      'item_type',
      'namespace',
      'item_id',
      'version',
      'yanked',
    ]);
    const key = parsePackageKey({
      kind: body['kind'],
      item_type: body['item_type'],
      namespace: body['namespace'],
      item_id: body['item_id'],
    });
    assertOwner(c.get('token'), key.namespace);
    const version = stringField(body, 'version', 256);
    assertVersion(version);
    const yanked = booleanField(body, 'yanked');
    if (!(await store.setYanked(key, version, yanked))) {
      throw notFound(`Cannot yank ${key.namespace}/${key.itemId}@${version}: no such version`);
    }
    return c.json({ yanked });
  });

  app.get('/v1/search', async (c) => {
    const q = query(c, ['q', 'kind', 'item_type', 'namespace', 'limit']);
    const text = q['q'] ?? '';
    if (text.length > MAX_QUERY_TEXT) {
      throw invalidRequest(`Cannot search: "q" is longer than ${MAX_QUERY_TEXT} characters`);
    }
    const kind =
      q['kind'] === undefined
        ? undefined
        : choiceOf(q['kind'], 'kind', ['item', 'bundle'] as const);
    const itemType =
      q['item_type'] === undefined ? undefined : choiceOf(q['item_type'], 'item_type', ITEM_TYPES);
    if (kind === 'bundle' && itemType !== undefined) {
      throw invalidRequest('Cannot search: "item_type" is only for kind=item');
    }
    const namespace = q['namespace'];
    if (namespace !== undefined && !USERNAME_RE.test(namespace)) {
      throw invalidRequest('Cannot search: "namespace" must be a username');
    }
    const hits = await store.search({
      text,
      kind,
      itemType,
      namespace,
      limit: limitOf(q['limit']),
    });
    const document: SearchDocument = {
      results: hits.map((h) => ({
        kind: h.kind,
        item_type: h.itemType,
        namespace: h.namespace,
        item_id: h.itemId,
        latest_version: h.latestPublished,
        versions: h.versions,
        description: h.description,
        published_at: h.publishedAt,
      })),
    };
    return c.json(document);
  });
}

/** The package a `?kind=&item_type=&namespace=&item_id=` query names. */
function packageKeyOf(c: Context): PackageKey {
  const q = query(c, ['kind', 'item_type', 'namespace', 'item_id']);
  return parsePackageKey({
    kind: q['kind'],
    item_type: q['item_type'],
    namespace: q['namespace'],
    item_id: q['item_id'],
  });
}

/** The query string, each parameter at most once, none but `allowed`. */
function query(c: Context, allowed: readonly string[]): Record<string, string | undefined> {
  const all = c.req.queries();
  const out: Record<string, string | undefined> = {};
  for (const [name, values] of Object.entries(all)) {
    if (!allowed.includes(name)) {
      throw invalidRequest(`Cannot read the request: unknown parameter "${name.slice(0, 40)}"`);
    }
    if (values.length !== 1) {
      throw invalidRequest(`Cannot read the request: "${name}" is given more than once`);
    }
    out[name] = values[0];
  }
  return out;
}

function limitOf(raw: string | undefined): number {
  if (raw === undefined) return DEFAULT_LIMIT;
  const n = /^\d{1,4}$/.test(raw) ? Number(raw) : NaN;
  if (!(n >= 1 && n <= MAX_SEARCH_LIMIT)) {
    throw invalidRequest(`Cannot search: "limit" must be 1..${MAX_SEARCH_LIMIT}`);
  }
  return n;
}
