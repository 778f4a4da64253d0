import { isItemId, problemWith } from '../items/index.js';
import { printable } from '../platform/index.js';

/**
 * An id pattern of a capability: `*` (every id), an exact item id, or
 * `prefix/*` (every id at any depth below `prefix/`, never `prefix` itself).
 */
export type Pattern = string;

/** The pattern that matches every id. */
export const ANY_ID = '*';

/**
 * Why `pattern` is not a capability pattern, or undefined when it is one.
 * Refused: `?`, `**`, a `*` anywhere but the whole pattern or the whole last
 * segment, `{` (an un-interpolated template: permissions are read before
 * inputs are, so a template would mean whatever the input says), and any
 * prefix or id that `parseItemId` refuses (dots, `..`, empty segments, `\`,
 * absolute paths, control characters). Pure.
 */
export function patternProblem(pattern: string): string | undefined {
  if (pattern === ANY_ID) return undefined;
  if (pattern.length === 0) return 'the pattern is empty';
  if (pattern.includes('{'))
    return 'it holds "{" (an un-interpolated template; permissions never depend on inputs)';
  if (pattern.includes('?')) return '"?" is not a wildcard (use * or prefix/*)';
  const star = pattern.indexOf('*');
  if (star !== -1 && !(star === pattern.length - 1 && pattern.endsWith('/*')))
    return 'a "*" may only be the whole pattern or the last segment after "/" (prefix/*)';
  const id = star === -1 ? pattern : pattern.slice(0, -2);
  if (isItemId(id)) return undefined;
  const why = problemWith(id);
  if (why === undefined) return undefined;
  return `${star === -1 ? 'the id' : `the prefix "${printable(id)}"`} is not an item id (${why})`;
}

/** True when `pattern` is `prefix/*`. */
export function isPrefixPattern(pattern: Pattern): boolean {
  return pattern.length > 2 && pattern.endsWith('/*');
}

/** `prefix/` of a `prefix/*` pattern (with its slash, so `arc/*` never meets `arcane`). */
export function prefixOf(pattern: Pattern): string {
  return pattern.slice(0, -1);
}

/**
 * True when `pattern` (valid) matches `id` (valid). Prefixes match only at a
 * `/`: `arc/*` matches `arc/x` and `arc/x/y`, not `arc` or `arcane`. Pure.
 */
export function patternMatches(pattern: Pattern, id: string): boolean {
  if (pattern === ANY_ID) return true;
  if (isPrefixPattern(pattern)) return id.startsWith(prefixOf(pattern));
  return pattern === id;
}

/**
 * True when every id `inner` matches is matched by `outer` (both valid). Two
 * patterns are always nested or disjoint, which makes the meet of two
 * patterns one of them or nothing (intersect.ts). Pure.
 */
export function patternCovers(outer: Pattern, inner: Pattern): boolean {
  if (outer === ANY_ID) return true;
  if (inner === ANY_ID) return false;
  if (!isPrefixPattern(outer)) return outer === inner;
  const prefix = prefixOf(outer);
  return isPrefixPattern(inner) ? prefixOf(inner).startsWith(prefix) : inner.startsWith(prefix);
}
