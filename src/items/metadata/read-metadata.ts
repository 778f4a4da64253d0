import type { ItemType } from '../item-type.js';
import { metadataKey, precompiledYaml } from './precompiled-yaml.js';
import type { ItemMetadata } from './types.js';

/** Parsed metadata by (type, extension, SHA-256 of the body): parsing is pure, so a hit is exact. */
const cache = new Map<string, ItemMetadata>();
const CACHE_LIMIT = 512;

/**
 * Read an item's metadata from its body (signature line already removed)
 * without executing anything. The parsers (YAML, XML, literals) load on first
 * use, so commands that only verify never pay for them, and a Python or
 * JavaScript tool never loads the YAML parser; the system space's YAML tools
 * come precompiled in the CLI bundle (precompiled-yaml.ts). Results are cached
 * by content, so an executor that reads the same runtime YAML on every call
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
  const key = metadataKey(itemType, extension, body);
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  const metadata = await parse(key, itemType, extension, body, source);
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  cache.set(key, metadata);
  return metadata;
}

async function parse(
  key: string,
  itemType: ItemType,
  extension: string,
  body: string,
  source: string,
): Promise<ItemMetadata> {
  switch (itemType) {
    case 'tool': {
      const code = await import('./tool-code-metadata.js');
      if (!code.isYamlExtension(extension))
        return code.extractCodeToolMetadata(body, extension, source);
      const document = precompiledYaml(key);
      if (document !== undefined)
        return (await import('./tool-mapping.js')).toolMetadataFromMapping(
          document,
          source,
          'YAML',
        );
      return (await import('./tool-metadata.js')).extractToolMetadata(body, extension, source);
    }
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
