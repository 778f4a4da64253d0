import { sha256Hex } from '../../integrity/index.js';
import type { ItemType } from '../item-type.js';
import type { ItemMetadata } from './types.js';

/** Parsed metadata by (type, extension, SHA-256 of the body): parsing is pure, so a hit is exact. */
const cache = new Map<string, ItemMetadata>();
const CACHE_LIMIT = 512;

/**
 * Read an item's metadata from its body (signature line already removed)
 * without executing anything. The parsers (YAML, XML, literals) load on first
 * use, so commands that only verify never pay for them; results are cached by
 * content, so an executor that reads the same runtime YAML on every call
 * parses it once. The returned object is shared: treat it as immutable.
 *
 * @throws RyeError METADATA_PARSE_FAILED, PARSE_UNSAFE_CONTENT
 */
export async function extractMetadata(
  itemType: ItemType,
  extension: string,
  body: string,
  source: string,
): Promise<ItemMetadata> {
  const key = `${itemType}\0${extension}\0${sha256Hex(body)}`;
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  const metadata = await parse(itemType, extension, body, source);
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  cache.set(key, metadata);
  return metadata;
}

async function parse(
  itemType: ItemType,
  extension: string,
  body: string,
  source: string,
): Promise<ItemMetadata> {
  switch (itemType) {
    case 'tool':
      return (await import('./tool-metadata.js')).extractToolMetadata(body, extension, source);
    case 'directive':
      return (await import('./directive-metadata.js')).extractDirectiveMetadata(body, source);
    case 'knowledge':
      return (await import('./knowledge-metadata.js')).extractKnowledgeMetadata(
        body,
        extension,
        source,
      );
  }
}
