import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { attemptKeyOf, type BudgetStore } from '../../../src/threads/budget/index.js';
import { SHA, STORE_KINDS, ledgerProblems, tid } from './ledger-fixtures.js';

type Usage = 'exact' | 'under' | 'missing' | 'excess' | 'garbled';

interface Step {
  readonly child: number;
  readonly action: 'advance' | 'release';
  readonly worst: number;
  readonly usage: Usage;
  readonly permille: number;
}

const stepArb: fc.Arbitrary<Step> = fc.record({
  child: fc.nat(7),
  action: fc.constantFrom<Step['action']>('advance', 'advance', 'advance', 'release'),
  worst: fc.integer({ min: 0, max: 450 }),
  usage: fc.constantFrom<Usage>('exact', 'under', 'under', 'missing', 'excess', 'garbled'),
  permille: fc.integer({ min: 0, max: 1000 }),
});

const limitsArb = fc.record({
  root: fc.integer({ min: 200, max: 1500 }),
  mid: fc.option(fc.integer({ min: 100, max: 900 }), { nil: null }),
  children: fc.array(fc.option(fc.integer({ min: 50, max: 700 }), { nil: null }), {
    minLength: 8,
    maxLength: 8,
  }),
});

type Phase = { kind: 'idle' } | { kind: 'reserved' | 'issued'; key: string; worst: number };

/**
 * One run: a root, a middle account holding children 0–3, children 4–7 right
 * under the root; steps move each child through reserve → issue → settle (or
 * release at any point), many children mid-flight at once, near the ceiling.
 * Returns the outcome of every step, to compare the two stores.
 */
async function runLedger(
  store: BudgetStore,
  limits: { root: number; mid: number | null; children: (number | null)[] },
  steps: readonly Step[],
): Promise<string[]> {
  const root = tid('root');
  const mid = tid('mid');
  await store.openAccount({
    threadId: root,
    treeId: root,
    parentThreadId: null,
    limitNanos: limits.root,
  });
  await store.openAccount({
    threadId: mid,
    treeId: root,
    parentThreadId: root,
    limitNanos: limits.mid,
  });
  const children: string[] = [];
  for (let i = 0; i < 8; i += 1) {
    const child = tid(`child${i}`);
    children.push(child);
    await store.openAccount({
      threadId: child,
      treeId: root,
      parentThreadId: i < 4 ? mid : root,
      limitNanos: limits.children[i] ?? null,
    });
  }
  const phases: Phase[] = children.map(() => ({ kind: 'idle' }));
  const turns = children.map(() => 0);
  const outcomes: string[] = [];
  const check = async (): Promise<void> => {
    expect(ledgerProblems(await store.snapshot(root))).toEqual([]);
  };

  for (const step of steps) {
    const child = children[step.child] ?? '';
    const phase = phases[step.child] ?? { kind: 'idle' };
    if (phase.kind === 'idle') {
      if (step.action === 'release') continue;
      turns[step.child] = (turns[step.child] ?? 0) + 1;
      const key = attemptKeyOf(child, turns[step.child] ?? 0, 0);
      const result = await store.reserve({
        attemptKey: key,
        threadId: child,
        requestSha256: SHA,
        worstNanos: step.worst,
      });
      outcomes.push(result.granted ? `grant ${step.worst}` : `deny ${result.reason}`);
      if (result.granted) phases[step.child] = { kind: 'reserved', key, worst: step.worst };
    } else if (step.action === 'release') {
      const result = await store.release(phase.key);
      outcomes.push(`${result.state} ${result.committedNanos}`);
      phases[step.child] = { kind: 'idle' };
    } else if (phase.kind === 'reserved') {
      await store.markIssued(phase.key);
      phases[step.child] = { ...phase, kind: 'issued' };
    } else {
      const charge = chargeFor(step, phase.worst);
      const result = await store.settle(phase.key, charge);
      outcomes.push(`${result.state} ${result.committedNanos}`);
      phases[step.child] = { kind: 'idle' };
    }
    await check();
  }

  const closed = await store.close(root);
  outcomes.push(...closed.finalized.map((f) => `close ${f.state} ${f.committedNanos}`));
  const final = await store.snapshot(root);
  expect(ledgerProblems(final)).toEqual([]);
  expect(final.accounts.every((a) => a.heldNanos === 0 && a.state === 'closed')).toBe(true);
  expect(final.attempts.every((a) => a.state !== 'reserved' && a.state !== 'issued')).toBe(true);
  return outcomes;
}

function chargeFor(step: Step, worst: number): number | null {
  switch (step.usage) {
    case 'exact':
      return worst;
    case 'under':
      return Math.floor((worst * step.permille) / 1000);
    case 'missing':
      return null;
    case 'excess':
      return worst + 1 + step.permille;
    case 'garbled':
      return -1 - step.permille;
  }
}

describe('the budget ledger under interleaved children (property)', () => {
  it('never overspends, debits always sum to totals, the root carries every descendant, nothing stays held; both stores agree', async () => {
    const [memory, sqlite] = STORE_KINDS.map(([, make]) => make());
    await fc.assert(
      fc.asyncProperty(
        limitsArb,
        fc.array(stepArb, { minLength: 1, maxLength: 120 }),
        async (limits, steps) => {
          const fromMemory = await runLedger(memory as BudgetStore, limits, steps);
          const fromSqlite = await runLedger(sqlite as BudgetStore, limits, steps);
          expect(fromSqlite).toEqual(fromMemory);
        },
      ),
      { numRuns: 60 },
    );
  });
});
