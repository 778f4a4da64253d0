import { ITEM_TYPES, RESERVED_PREFIX, isItemId, type ItemType } from '../items/index.js';
import { CAP_VERBS, formatCapability, type CapVerb, type Capability } from './capability.js';
import {
  EMPTY_PATTERN_SET,
  buildPatternSet,
  compareUnits,
  patternSetCovers,
  patternSetMatches,
  patternSetPatterns,
  type PatternSet,
} from './pattern-set.js';

const SORTED_VERBS = [...CAP_VERBS].sort(compareUnits);
const SORTED_TYPES = [...ITEM_TYPES].sort(compareUnits);

type SetTable = Readonly<Record<CapVerb, Readonly<Record<ItemType, PatternSet>>>>;

/**
 * A compiled capability set. `caps` is its minimal form, sorted by string
 * (`load` grants an `execute` grant already implies are left out); `sets`
 * holds, per verb and type, what is allowed, implication included. Build it
 * with {@link compileCaps}; it never changes afterwards.
 */
export interface CapSet {
  readonly caps: readonly Capability[];
  readonly sets: SetTable;
}

/**
 * Compile a list of capabilities (already parsed). `execute` implies `load`
 * of the same pattern; nothing else is implied. Duplicates and grants another
 * one covers are dropped from `caps`. Pure.
 */
export function compileCaps(list: readonly Capability[]): CapSet {
  const raw = patternsByVerbAndType(list);
  const sets = {} as Record<CapVerb, Record<ItemType, PatternSet>>;
  const caps: Capability[] = [];
  // Verbs and types in string order, patterns sorted within each: `caps` comes
  // out sorted by its string form (no verb or type is a prefix of another).
  for (const verb of SORTED_VERBS) {
    sets[verb] = {} as Record<ItemType, PatternSet>;
    for (const type of SORTED_TYPES) {
      const own = raw[verb][type];
      const implied = verb === 'load' ? raw.execute[type] : [];
      if (own.length === 0) {
        // Nothing of its own: allowed only what execute implies, shown nowhere.
        sets[verb][type] = implied.length === 0 ? EMPTY_PATTERN_SET : sets.execute[type];
        continue;
      }
      const set = buildPatternSet(implied.length === 0 ? own : [...own, ...implied]);
      sets[verb][type] = set;
      const patterns = patternSetPatterns(set);
      const exec = sets.execute[type];
      for (const pattern of patterns)
        if (implied.length === 0 || !patternSetCovers(exec, pattern))
          caps.push({ verb, type, pattern });
    }
  }
  return { caps, sets };
}

/** The set that allows nothing (fail closed). */
export const EMPTY_CAP_SET: CapSet = compileCaps([]);

/**
 * True when the set allows `verb` on the `type` item `id`. Pure and fast: a
 * `Set` lookup and a binary search over sorted prefixes. An id that
 * `parseItemId` would refuse is never allowed, whatever the set holds.
 */
export function allowed(set: CapSet, verb: CapVerb, type: ItemType, id: string): boolean {
  return patternSetMatches(set.sets[verb][type], id) && isItemId(id);
}

/**
 * The chain rule for `execute` on a tool: the entry id is checked first; failing
 * that, a grant matching any element of its verified chain (a runtime or
 * primitive it runs on) covers it, except for tools under `rye/`, which need
 * their own grant. `chainIds` is the verified chain in order, the entry first;
 * when it does not start with `toolId` only the entry check applies (fail
 * closed). Call it only once the chain is built and verified. Pure.
 */
export function allowedViaChain(set: CapSet, chainIds: readonly string[], toolId: string): boolean {
  if (allowed(set, 'execute', 'tool', toolId)) return true;
  if (toolId.startsWith(RESERVED_PREFIX) || chainIds[0] !== toolId) return false;
  if (!isItemId(toolId)) return false;
  return chainIds.slice(1).some((id) => allowed(set, 'execute', 'tool', id));
}

/**
 * True when every id `cap.pattern` matches is allowed for its verb and type
 * (the set covers the grant, implication included). Pure.
 */
export function capSetCovers(set: CapSet, cap: Capability): boolean {
  return patternSetCovers(set.sets[cap.verb][cap.type], cap.pattern);
}

/** The compiled patterns for one verb and type (implication included). */
export function patternSetOf(set: CapSet, verb: CapVerb, type: ItemType): PatternSet {
  return set.sets[verb][type];
}

/** The minimal capability strings of a set, sorted. Pure. */
export function capStrings(set: CapSet): string[] {
  return set.caps.map(formatCapability);
}

function patternsByVerbAndType(
  list: readonly Capability[],
): Record<CapVerb, Record<ItemType, string[]>> {
  const out = {} as Record<CapVerb, Record<ItemType, string[]>>;
  for (const verb of CAP_VERBS) {
    out[verb] = { tool: [], directive: [], knowledge: [] };
  }
  for (const cap of list) out[cap.verb][cap.type].push(cap.pattern);
  return out;
}
