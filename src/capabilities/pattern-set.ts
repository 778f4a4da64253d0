import { ANY_ID, isPrefixPattern, prefixOf, type Pattern } from './pattern.js';

/**
 * A compiled union of patterns, kept minimal: `all` when `*` is in it; exact
 * ids in a `Set` (none a prefix already matches); prefixes (`p/`, with the
 * slash) sorted, none nested in another. Patterns are always nested or
 * disjoint, so that minimal form is unique for a given set of ids.
 */
export interface PatternSet {
  readonly all: boolean;
  readonly exact: ReadonlySet<string>;
  readonly prefixes: readonly string[];
}

/** The empty set: matches nothing. */
export const EMPTY_PATTERN_SET: PatternSet = { all: false, exact: new Set(), prefixes: [] };

/** Compile valid patterns (checked by `patternProblem`) into their minimal set. Pure. */
export function buildPatternSet(patterns: Iterable<Pattern>): PatternSet {
  const exact: string[] = [];
  const rawPrefixes: string[] = [];
  for (const pattern of patterns) {
    if (pattern === ANY_ID) return { all: true, exact: new Set(), prefixes: [] };
    if (isPrefixPattern(pattern)) rawPrefixes.push(prefixOf(pattern));
    else exact.push(pattern);
  }
  // Sorted, a prefix's descendants follow it contiguously: keep each one that
  // does not start with the last one kept.
  rawPrefixes.sort(compareUnits);
  const prefixes: string[] = [];
  for (const prefix of rawPrefixes) {
    const last = prefixes[prefixes.length - 1];
    if (last === undefined || !prefix.startsWith(last)) prefixes.push(prefix);
  }
  const set: PatternSet = { all: false, exact: new Set(), prefixes };
  const kept = new Set(exact.filter((id) => !prefixMatches(set, id)));
  return { all: false, exact: kept, prefixes };
}

/** True when the set matches `id` (a valid id). O(log n). Pure. */
export function patternSetMatches(set: PatternSet, id: string): boolean {
  return set.all || set.exact.has(id) || prefixMatches(set, id);
}

/** True when every id `pattern` (valid) matches is in the set. Pure. */
export function patternSetCovers(set: PatternSet, pattern: Pattern): boolean {
  if (set.all) return true;
  if (pattern === ANY_ID) return false;
  if (isPrefixPattern(pattern)) return prefixMatches(set, prefixOf(pattern));
  return set.exact.has(pattern) || prefixMatches(set, pattern);
}

/** The set's minimal patterns, sorted by UTF-16 code unit. Pure. */
export function patternSetPatterns(set: PatternSet): Pattern[] {
  if (set.all) return [ANY_ID];
  const out = [...set.exact, ...set.prefixes.map((p) => `${p}*`)];
  return out.sort(compareUnits);
}

/**
 * True when a kept prefix starts `text`. Prefixes are an antichain, so the only
 * candidate is the greatest prefix ≤ `text`: any string between a prefix of
 * `text` and `text` itself starts with that prefix, which would nest it.
 */
function prefixMatches(set: PatternSet, text: string): boolean {
  const list = set.prefixes;
  let lo = 0;
  let hi = list.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    if ((list[mid] as string) <= text) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found !== -1 && text.startsWith(list[found] as string);
}

/** Plain `<` order on UTF-16 code units (ids are ASCII, so this is byte order). */
export function compareUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
