import type { ItemType } from '../../items/index.js';

/** `/v1/items/<type>/<namespace>/<id…>`: each id segment URL-encoded, slashes kept. */
export function itemPath(itemType: ItemType, namespace: string, itemId: string): string {
  return `/v1/items/${itemType}/${encodeURIComponent(namespace)}/${encodeId(itemId)}`;
}

/** `/v1/bundles/<namespace>/<id…>`. */
export function bundlePath(namespace: string, bundleId: string): string {
  return `/v1/bundles/${encodeURIComponent(namespace)}/${encodeId(bundleId)}`;
}

/** `/v1/blobs/<sha256>`. */
export function blobPath(sha256: string): string {
  return `/v1/blobs/${sha256}`;
}

function encodeId(id: string): string {
  return id.split('/').map(encodeURIComponent).join('/');
}
