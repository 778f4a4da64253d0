import { RyeError } from '../errors/index.js';
import { compileGlob } from '../platform/index.js';

export { isGlob } from '../platform/index.js';

/**
 * Compile an id glob (platform's `compileGlob`): `*` matches within one
 * segment, `**` any number of segments (`apps/x/**` = everything under
 * apps/x), `?` one character.
 *
 * @throws RyeError ITEM_ID_INVALID for patterns that could leave the type folder.
 */
export function compileIdGlob(pattern: string): (itemId: string) => boolean {
  if (
    pattern.includes('..') ||
    pattern.includes('\\') ||
    pattern.startsWith('/') ||
    pattern.includes('//')
  ) {
    throw new RyeError(
      'ITEM_ID_INVALID',
      `Cannot use pattern "${pattern}": it must be a relative id glob`,
      { pattern },
    );
  }
  return compileGlob(pattern);
}
