import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  attemptKeyOf,
  formatUsd,
  memoryBudgetStore,
  parseUsd,
  type BudgetStore,
} from '../../../src/threads/budget/index.js';
import { DEFAULT_LIMITS, clampLimits } from '../../../src/threads/directive/index.js';
import { SHA, clock, ledgerProblems, tid } from '../budget/ledger-fixtures.js';

type Usage = 'exact' | 'under' | 'missing' | 'excess';

interface ChildSpec {
  /** Index of the parent among the earlier children, or -1 for the root. */
  readonly parent: number;
  /** What the child directive declares (0 = unlimited). */
  readonly declared: number;
  readonly turns: readonly { worst: number; usage: Usage; permille: number }[];
}

const childArb = (i: number): fc.Arbitrary<ChildSpec> =>
  fc.record({
    parent: fc.integer({ min: -1, max: i - 1 }),
    declared: fc.oneof(fc.constant(0), fc.integer({ min: 50, max: 2_000 })),
    turns: fc.array(
      fc.record({
        worst: fc.integer({ min: 0, max: 600 }),
        usage: fc.constantFrom<Usage>('exact', 'under', 'under', 'missing', 'excess'),
        permille: fc.integer({ min: 0, max: 1000 }),
      }),
      { minLength: 1, maxLength: 6 },
    ),
  });

interface TreeSpec {
  readonly root: number;
  readonly rootTurns: ChildSpec['turns'];
  readonly children: readonly ChildSpec[];
  readonly yields: readonly number[];
}

const treeArb: fc.Arbitrary<TreeSpec> = fc.record({
  root: fc.integer({ min: 100, max: 3_000 }),
  rootTurns: childArb(0).map((c) => c.turns),
  children: fc
    .integer({ min: 1, max: 8 })
    .chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => childArb(i)))),
  yields: fc.array(fc.nat(3), { minLength: 64, maxLength: 64 }),
});

/** The spend limit a child gets: its declared limit clamped to its parent's (THREADS.md §5). */
function clampedSpend(declared: number, parentSpend: string): string {
  const child = { ...DEFAULT_LIMITS, spend: formatUsd(declared) };
  return clampLimits(child, { ...DEFAULT_LIMITS, spend: parentSpend }).spend;
}

/**
 * One tree: accounts opened as a spawn opens them (limit clamped to the
 * parent's), then every child runs its turns concurrently (reserve → issue →
 * settle, or a release), interleaved at random yields, like parallel
 * children of an in-process tree.
 */
async function runTree(store: BudgetStore, spec: TreeSpec): Promise<void> {
  const root = tid('root');
  const rootSpend = formatUsd(spec.root);
  await store.openAccount({
    threadId: root,
    treeId: root,
    parentThreadId: null,
    limitNanos: spec.root,
  });
  const ids: string[] = [];
  const spends: string[] = [];
  for (const child of spec.children) {
    const id = tid('child');
    const parentId = child.parent < 0 ? root : (ids[child.parent] as string);
    const parentSpend = child.parent < 0 ? rootSpend : (spends[child.parent] as string);
    const spend = clampedSpend(child.declared, parentSpend);
    // Clamping never widens: a finite parent gives a finite child no larger than it.
    expect(parseUsd(spend, 'spend')).toBeLessThanOrEqual(parseUsd(parentSpend, 'spend'));
    ids.push(id);
    spends.push(spend);
    await store.openAccount({
      threadId: id,
      treeId: root,
      parentThreadId: parentId,
      limitNanos: parseUsd(spend, 'spend') === 0 ? null : parseUsd(spend, 'spend'),
    });
  }
  let tick = 0;
  const yieldSome = async (): Promise<void> => {
    const n = spec.yields[tick++ % spec.yields.length] ?? 0;
    for (let i = 0; i < n; i++) await Promise.resolve();
  };
  const runners = [
    ...spec.children.map((child, index) => ({ id: ids[index] as string, turns: child.turns })),
    { id: root, turns: spec.rootTurns },
  ];
  await Promise.all(
    runners.map(async ({ id, turns }) => {
      for (const [turn, step] of turns.entries()) {
        await yieldSome();
        const key = attemptKeyOf(id, turn, 1);
        const reserved = await store.reserve({
          attemptKey: key,
          threadId: id,
          requestSha256: SHA,
          worstNanos: step.worst,
        });
        if (!reserved.granted) return; // budget_denied: the child stops
        await yieldSome();
        await store.markIssued(key);
        await yieldSome();
        const charge =
          step.usage === 'missing'
            ? null
            : step.usage === 'excess'
              ? step.worst + 1
              : step.usage === 'exact'
                ? step.worst
                : Math.floor((step.worst * step.permille) / 1000);
        const settled = await store.settle(key, charge);
        if (settled.state === 'bound_violated') return; // the thread stops
      }
    }),
  );
  // Finished children release what they still hold (nothing here: every attempt settled).
  for (const id of ids) await store.close(id);
  const snapshot = await store.snapshot(root);
  expect(ledgerProblems(snapshot)).toEqual([]);
  expect(snapshot.accounts.every((a) => a.heldNanos === 0)).toBe(true);
  for (const account of snapshot.accounts)
    if (account.limitNanos !== null)
      expect(account.committedNanos).toBeLessThanOrEqual(account.limitNanos);
}

describe('budgets across a tree (property)', () => {
  it('a root and up to 8 concurrent children (random shapes, clamped limits) and scripted usage (exact, under, missing, excess): no account commits past its limit; the root commits its own plus every descendant’s', async () => {
    await fc.assert(
      fc.asyncProperty(treeArb, async (spec) => {
        const store = memoryBudgetStore({ clock });
        try {
          await runTree(store, spec);
        } finally {
          store.dispose();
        }
      }),
      { numRuns: 2_000 },
    );
  }, 120_000);
});
