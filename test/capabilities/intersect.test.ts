import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  allowed,
  capSetCovers,
  capStrings,
  compileCaps,
  formatCapability,
  intersectCaps,
  parseCapability,
  type CapVerb,
  type Capability,
} from '../../src/capabilities/index.js';

const VERBS = ['execute', 'search', 'load', 'sign'] as const;
const TYPES = ['tool', 'directive', 'knowledge'] as const;
/** A small alphabet so that random patterns overlap, nest and collide often. */
const SEGMENTS = ['a', 'b', 'ab', 'c'];
/** A segment no generated pattern names: `<prefix>/q9` is a witness for "not covered". */
const FRESH = 'q9';

const path = fc
  .array(fc.constantFrom(...SEGMENTS), { minLength: 1, maxLength: 3 })
  .map((s) => s.join('/'));
const pattern = fc.oneof(
  { weight: 1, arbitrary: fc.constant('*') },
  { weight: 4, arbitrary: path },
  { weight: 4, arbitrary: path.map((p) => `${p}/*`) },
);
const capability: fc.Arbitrary<Capability> = fc.record({
  verb: fc.constantFrom(...VERBS),
  type: fc.constantFrom(...TYPES),
  pattern,
});
const capList = fc.array(capability, { maxLength: 12 });
const ids = fc.array(
  fc.oneof(
    path,
    path.map((p) => `${p}/${FRESH}`),
  ),
  { minLength: 1, maxLength: 30 },
);

function strings(caps: readonly Capability[]): string[] {
  return caps.map(formatCapability);
}

describe('intersectCaps()', () => {
  it('is the exact intersection: allowed by the result iff allowed by both sides (sampled)', () => {
    fc.assert(
      fc.property(capList, capList, ids, (a, b, sample) => {
        const result = intersectCaps(a, b).set;
        const left = compileCaps(a);
        const right = compileCaps(b);
        for (const id of sample)
          for (const verb of VERBS)
            for (const type of TYPES) {
              const both = allowed(left, verb, type, id) && allowed(right, verb, type, id);
              expect(allowed(result, verb, type, id), `${verb} ${type} ${id}`).toBe(both);
            }
      }),
      { numRuns: 300 },
    );
  });

  it('is commutative and idempotent as sets (one minimal form)', () => {
    fc.assert(
      fc.property(capList, capList, (a, b) => {
        const ab = intersectCaps(a, b);
        expect(capStrings(intersectCaps(b, a).set)).toEqual(capStrings(ab.set));
        expect(capStrings(intersectCaps(a, a).set)).toEqual(capStrings(compileCaps(a)));
        expect(capStrings(intersectCaps(ab.set, b).set)).toEqual(capStrings(ab.set));
        expect(capStrings(intersectCaps(ab.set, ab.set).set)).toEqual(capStrings(ab.set));
      }),
      { numRuns: 300 },
    );
  });

  it('is never wider than either side', () => {
    fc.assert(
      fc.property(capList, capList, (a, b) => {
        const { caps } = intersectCaps(a, b);
        for (const cap of caps) {
          expect(capSetCovers(compileCaps(a), cap), formatCapability(cap)).toBe(true);
          expect(capSetCovers(compileCaps(b), cap), formatCapability(cap)).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('drops exactly the declared child grants the result does not cover in full', () => {
    fc.assert(
      fc.property(capList, capList, ids, (parent, child, sample) => {
        const { set, dropped } = intersectCaps(parent, child);
        const droppedStrings = strings(dropped);
        expect(droppedStrings).toEqual([...new Set(droppedStrings)].sort());
        for (const cap of child) {
          const isDropped = droppedStrings.includes(formatCapability(cap));
          expect(isDropped).toBe(!capSetCovers(set, cap));
          if (isDropped) {
            // A witness the grant names that the child lost.
            const witness =
              cap.pattern === '*'
                ? FRESH
                : cap.pattern.endsWith('/*')
                  ? cap.pattern.replace(/\*$/, FRESH)
                  : cap.pattern;
            expect(allowed(set, cap.verb, cap.type, witness), witness).toBe(false);
          } else {
            for (const id of sample) {
              const named =
                cap.pattern === '*' ||
                id === cap.pattern ||
                (cap.pattern.endsWith('/*') && id.startsWith(cap.pattern.slice(0, -1)));
              if (named) expect(allowed(set, cap.verb, cap.type, id)).toBe(true);
            }
          }
        }
        for (const cap of dropped) expect(strings(child)).toContain(formatCapability(cap));
      }),
      { numRuns: 300 },
    );
  });

  it('keeps a narrowed grant as its narrower part and reports the declared one dropped', () => {
    const p = (s: string): Capability => parseCapability(s);
    const { caps, dropped } = intersectCaps(
      [p('rye.execute.tool.web/*'), p('rye.search.knowledge.*')],
      [p('rye.execute.tool.*'), p('rye.execute.tool.web/x'), p('rye.execute.tool.rye/bash/*')],
    );
    expect(strings(caps)).toEqual(['rye.execute.tool.web/*']);
    expect(strings(dropped)).toEqual(['rye.execute.tool.*', 'rye.execute.tool.rye/bash/*']);
  });

  it('applies execute ⇒ load on both sides before meeting', () => {
    const p = (s: string): Capability => parseCapability(s);
    const child = [p('rye.load.tool.web/x'), p('rye.execute.tool.web/y')];
    const { caps, dropped } = intersectCaps([p('rye.execute.tool.web/*')], child);
    expect(strings(caps)).toEqual(['rye.execute.tool.web/y', 'rye.load.tool.web/x']);
    expect(dropped).toEqual([]);
    const loadOnly = intersectCaps([p('rye.load.tool.web/*')], [p('rye.execute.tool.web/y')]);
    expect(strings(loadOnly.caps)).toEqual(['rye.load.tool.web/y']);
    expect(strings(loadOnly.dropped)).toEqual(['rye.execute.tool.web/y']);
  });

  it('gives the empty set against an empty parent, dropping every declared grant', () => {
    const child = [parseCapability('rye.execute.tool.x'), parseCapability('rye.sign.tool.*')];
    const { caps, dropped } = intersectCaps([], child);
    expect(caps).toEqual([]);
    expect(strings(dropped)).toEqual(['rye.execute.tool.x', 'rye.sign.tool.*']);
    const verbs: CapVerb[] = [...VERBS];
    for (const verb of verbs)
      expect(allowed(intersectCaps([], child).set, verb, 'tool', 'x')).toBe(false);
  });
});
