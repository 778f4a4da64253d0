import { RyeError } from '../errors/index.js';
import { ITEM_TYPES, type ItemType } from '../integrity/index.js';

export { ITEM_TYPES, type ItemType };

/** The folder under `.ai/` that holds each item type. */
export const ITEM_FOLDERS: Readonly<Record<ItemType, string>> = {
  directive: 'directives',
  tool: 'tools',
  knowledge: 'knowledge',
};

/**
 * Extensions probed, in this order, when an item id is resolved. The tool order
 * follows the Python implementation's tool extractor, then the additions.
 */
export const ITEM_EXTENSIONS: Readonly<Record<ItemType, readonly string[]>> = {
  directive: ['.md'],
  tool: [
    '.py',
    '.yaml',
    '.yml',
    '.json',
    '.js',
    '.ts',
    '.mjs',
    '.cjs',
    '.mts',
    '.sh',
    '.bash',
    '.toml',
  ],
  knowledge: ['.md', '.yaml', '.yml'],
};

/** @throws RyeError ITEM_TYPE_INVALID */
export function parseItemType(value: string): ItemType {
  if ((ITEM_TYPES as readonly string[]).includes(value)) return value as ItemType;
  throw new RyeError(
    'ITEM_TYPE_INVALID',
    `Cannot use item type "${value}": expected one of ${ITEM_TYPES.join(', ')}`,
    { value },
  );
}
