import { isAbsolute, relative, sep } from 'node:path';

/**
 * `target` relative to `base`, `/`-separated, when `target` is `base` itself
 * (`''`) or lies under it; `undefined` when it lies outside (or on another
 * drive). Purely textual: callers resolve symbolic links first when they matter.
 *
 * Only a leading `..` path segment means outside: a file named `..x.py`
 * inside `base` is inside. Callers that want strictly-inside check for `''`.
 */
export function relativeInside(base: string, target: string): string | undefined {
  const rel = relative(base, target);
  if (isAbsolute(rel) || rel === '..' || rel.startsWith(`..${sep}`)) return undefined;
  return sep === '/' ? rel : rel.split(sep).join('/');
}
