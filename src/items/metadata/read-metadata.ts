import type { ItemType } from '../item-type.js';
import { extractDirectiveMetadata } from './directive-metadata.js';
import { extractKnowledgeMetadata } from './knowledge-metadata.js';
import { extractToolMetadata } from './tool-metadata.js';
import type { ItemMetadata } from './types.js';

/**
 * Read an item's metadata from its body (signature line already removed)
 * without executing anything.
 *
 * @throws RyeError METADATA_PARSE_FAILED, PARSE_UNSAFE_CONTENT
 */
export function extractMetadata(
  itemType: ItemType,
  extension: string,
  body: string,
  source: string,
): ItemMetadata {
  switch (itemType) {
    case 'tool':
      return extractToolMetadata(body, extension, source);
    case 'directive':
      return extractDirectiveMetadata(body, source);
    case 'knowledge':
      return extractKnowledgeMetadata(body, extension, source);
  }
}
