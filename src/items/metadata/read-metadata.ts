import type { ItemType } from '../item-type.js';
import type { ItemMetadata } from './types.js';

/**
 * Read an item's metadata from its body (signature line already removed)
 * without executing anything. The parsers (YAML, XML, literals) load on first
 * use, so commands that only verify never pay for them.
 *
 * @throws RyeError METADATA_PARSE_FAILED, PARSE_UNSAFE_CONTENT
 */
export async function extractMetadata(
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
