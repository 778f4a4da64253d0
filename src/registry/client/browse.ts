/**
 * Reading the registry (search; versions, from the signed package index) and
 * yanking a version. Search results are unsigned hints; what a pull takes is
 * decided by the signed index alone.
 */
import { RyeError } from '../../errors/index.js';
import { parseItemType, type ItemType } from '../../items/index.js';
import { assertVersion, isUsername, parseRegistryRef } from '../names.js';
import { requireToken } from './credentials.js';
import { parseSearchDocument, parseYankDocument } from './documents.js';
import { fetchVerifiedIndex, indexSummary } from './fetch-index.js';
import { pinnedRegistryKey } from './registry-key.js';
import type { RegistrySession } from './session.js';

export interface SearchInput {
  readonly query?: string | undefined;
  readonly itemType?: string | undefined;
  readonly namespace?: string | undefined;
  readonly kind?: string | undefined;
  readonly limit?: number | string | undefined;
}

/** @throws RyeError USAGE_INVALID_ARGUMENT, ITEM_TYPE_INVALID, REGISTRY_REF_INVALID, transport codes */
export async function search(
  session: RegistrySession,
  input: SearchInput,
): Promise<Record<string, unknown> & { ok: true }> {
  const kind = input.kind;
  if (kind !== undefined && kind !== 'item' && kind !== 'bundle')
    throw usage(`kind must be item or bundle, not "${kind.slice(0, 40)}"`);
  const itemType = input.itemType === undefined ? undefined : parseItemType(input.itemType);
  const namespace = input.namespace;
  if (namespace !== undefined && !isUsername(namespace)) {
    throw new RyeError(
      'REGISTRY_REF_INVALID',
      `Cannot search namespace "${String(namespace).slice(0, 60)}": namespaces are usernames of 2-39 characters [a-z0-9_-]`,
      {},
    );
  }
  const limit = input.limit === undefined ? undefined : Number(input.limit);
  if (limit !== undefined && (!Number.isSafeInteger(limit) || limit < 1 || limit > 200))
    throw usage('limit must be a whole number from 1 to 200');
  const { value } = await session.http.json({
    method: 'GET',
    path: '/v1/search',
    query: {
      q: input.query,
      kind,
      item_type: itemType,
      namespace,
      limit: limit === undefined ? undefined : String(limit),
    },
  });
  const doc = parseSearchDocument(value, session.endpoint.url);
  return { ok: true, action: 'search', registry: session.endpoint.url, results: doc.results };
}

/** A `<type|bundle>` argument: an item type, or `bundle`. */
export function parseTarget(value: string): { kind: 'item' | 'bundle'; itemType: ItemType | null } {
  return value === 'bundle'
    ? { kind: 'bundle', itemType: null }
    : { kind: 'item', itemType: parseItemType(value) };
}

/**
 * The versions of a package as its signed index lists them (verified like a
 * pull's: pinned key, expiry, seq never lower than seen).
 *
 * @throws RyeError ITEM_TYPE_INVALID, REGISTRY_REF_INVALID, REGISTRY_NOT_FOUND,
 *   transport codes, the codes of pinnedRegistryKey and fetchVerifiedIndex
 */
export async function listVersions(
  session: RegistrySession,
  target: string,
  ref: string,
): Promise<Record<string, unknown> & { ok: true }> {
  const { kind, itemType } = parseTarget(target);
  const { namespace, itemId } = parseRegistryRef(ref);
  const key = await pinnedRegistryKey(session);
  const index = await fetchVerifiedIndex(session, key, { kind, itemType, namespace, itemId });
  return {
    ok: true,
    action: 'versions',
    registry: session.endpoint.url,
    kind,
    item_type: itemType,
    namespace,
    item_id: itemId,
    latest: index.latest,
    versions: index.versions.map((v) => ({
      version: v.version,
      yanked: v.yanked,
      published_at: v.published_at,
      content_hash: v.content_hash,
    })),
    index: indexSummary(index),
  };
}

/**
 * Yank (or, with `undo`, restore) a published version: it stays pullable by
 * exact version but is no longer anyone's "latest".
 *
 * @throws RyeError REGISTRY_AUTH_REQUIRED (before any network call),
 *   ITEM_TYPE_INVALID, REGISTRY_REF_INVALID, REGISTRY_FORBIDDEN, REGISTRY_NOT_FOUND
 */
export async function yank(
  session: RegistrySession,
  target: string,
  ref: string,
  version: string,
  undo: boolean,
): Promise<Record<string, unknown> & { ok: true }> {
  const { url } = session.endpoint;
  const token = await requireToken(session.spaces, url, session.env, 'yank');
  const { kind, itemType } = parseTarget(target);
  const { namespace, itemId } = parseRegistryRef(ref);
  assertVersion(version);
  const { value } = await session.http.json({
    method: 'POST',
    path: '/v1/yank',
    token: token.token,
    json: { kind, item_type: itemType, namespace, item_id: itemId, version, yanked: !undo },
  });
  const doc = parseYankDocument(value, url);
  return {
    ok: true,
    action: 'yank',
    registry: url,
    kind,
    item_type: itemType,
    namespace,
    item_id: itemId,
    version,
    yanked: doc.yanked,
  };
}

function usage(why: string): RyeError {
  return new RyeError('USAGE_INVALID_ARGUMENT', `Cannot search the registry: ${why}`, {});
}
