import { ITEM_TYPES } from '../items/index.js';
import { capSetCovers, compileCaps, patternSetOf, type CapSet } from './cap-set.js';
import { CAP_VERBS, formatCapability, type Capability } from './capability.js';
import { compareUnits, patternSetCovers, patternSetPatterns } from './pattern-set.js';

/** What attenuation kept and what the child declared but lost. */
export interface Intersection {
  /** The child's set: the exact intersection, in minimal sorted form. */
  readonly set: CapSet;
  /** The same, as a list (`set.caps`). */
  readonly caps: readonly Capability[];
  /**
   * Every declared child capability the result does not cover in full, as
   * declared (deduplicated, sorted): dropped outright or narrowed. This is the
   * child's `caps_dropped`.
   */
  readonly dropped: readonly Capability[];
}

/**
 * The child's set under a parent (THREADS.md §3 "Attenuation"): for each verb
 * and type, `meet(a, b)` is whichever of two patterns the other covers (two
 * patterns are nested or disjoint), and the result is the union of the meets
 * minus covered duplicates: exactly the ids both sides allow, `execute ⇒ load`
 * applied on both sides first. Commutative and idempotent on what it allows;
 * never wider than either side. Pure.
 */
export function intersectCaps(
  parent: CapSet | readonly Capability[],
  childDeclared: CapSet | readonly Capability[],
): Intersection {
  const a = asSet(parent);
  const b = asSet(childDeclared);
  const kept: Capability[] = [];
  for (const verb of CAP_VERBS) {
    for (const type of ITEM_TYPES) {
      const left = patternSetOf(a, verb, type);
      const right = patternSetOf(b, verb, type);
      // The union of pairwise meets: a pattern of one side survives exactly
      // when the other side covers it (a single pattern of it always does).
      for (const pattern of patternSetPatterns(left))
        if (patternSetCovers(right, pattern)) kept.push({ verb, type, pattern });
      for (const pattern of patternSetPatterns(right))
        if (patternSetCovers(left, pattern)) kept.push({ verb, type, pattern });
    }
  }
  const set = compileCaps(kept);
  const declared = Array.isArray(childDeclared) ? childDeclared : (childDeclared as CapSet).caps;
  return { set, caps: set.caps, dropped: droppedFrom(set, declared) };
}

/** The declared capabilities `set` does not cover in full, deduplicated and sorted. Pure. */
export function droppedFrom(set: CapSet, declared: readonly Capability[]): Capability[] {
  const seen = new Map<string, Capability>();
  for (const cap of declared) if (!capSetCovers(set, cap)) seen.set(formatCapability(cap), cap);
  return [...seen.entries()].sort(([x], [y]) => compareUnits(x, y)).map(([, cap]) => cap);
}

function asSet(value: CapSet | readonly Capability[]): CapSet {
  return Array.isArray(value) ? compileCaps(value) : (value as CapSet);
}
