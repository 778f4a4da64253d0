import { RyeError } from '../errors/index.js';

/** True when an id argument is a glob (`*`, `**` or `?`) rather than one id. */
export function isGlob(pattern: string): boolean {
  return /[*?]/.test(pattern);
}

/**
 * Compile an id glob: `*` matches within one segment, `**` any number of
 * segments (`apps/x/**` = everything under apps/x), `?` one character.
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
      {
        pattern,
      },
    );
  }
  let source = '';
  for (let i = 0; i < pattern.length; i += 1) {
    const c = pattern[i] ?? '';
    if (c === '*' && pattern[i + 1] === '*') {
      const slashAfter = pattern[i + 2] === '/';
      source += slashAfter ? '(?:.*/)?' : '.*';
      i += slashAfter ? 2 : 1;
    } else if (c === '*') {
      source += '[^/]*';
    } else if (c === '?') {
      source += '[^/]';
    } else {
      source += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
    }
  }
  const re = new RegExp(`^${source}$`);
  return (itemId) => re.test(itemId);
}
