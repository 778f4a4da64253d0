import { ITEM_TYPES } from '../../items/index.js';
import { USERNAME_RE, assertRegistryId } from '../names.js';
import { MAX_NAME_LENGTH, choiceOf } from './body.js';
import { invalidRequest } from './errors.js';
import type { PackageKey } from './store/index.js';

/** The raw `kind`, `item_type`, `namespace`, `item_id` of a query or body. */
export interface RawPackageKey {
  readonly kind: unknown;
  readonly item_type: unknown;
  readonly namespace: unknown;
  readonly item_id: unknown;
}

/**
 * Check a package key: items need `item_type`, bundles must not have one
 * (absent or null).
 * @throws RyeError REGISTRY_INVALID_REQUEST, REGISTRY_REF_INVALID
 */
export function parsePackageKey(raw: RawPackageKey): PackageKey {
  const kind = choiceOf(raw.kind, 'kind', ['item', 'bundle'] as const);
  const itemType =
    kind === 'item'
      ? choiceOf(raw.item_type, 'item_type', ITEM_TYPES)
      : raw.item_type === undefined || raw.item_type === null
        ? null
        : refuse('"item_type" is only for kind=item');
  const namespace = raw.namespace;
  if (typeof namespace !== 'string' || !USERNAME_RE.test(namespace)) {
    throw invalidRequest('Cannot read the request: "namespace" must be a username');
  }
  const itemId = raw.item_id;
  if (typeof itemId !== 'string' || itemId.length > MAX_NAME_LENGTH) {
    throw invalidRequest('Cannot read the request: "item_id" must be a string');
  }
  assertRegistryId(itemId);
  return { kind, itemType, namespace, itemId };
}

function refuse(why: string): never {
  throw invalidRequest(`Cannot read the request: ${why}`);
}
