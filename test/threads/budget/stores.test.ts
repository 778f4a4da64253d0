import { describe, expect, it } from 'vitest';
import {
  assertGranted,
  assertWithinBound,
  attemptKeyOf,
  type BudgetStore,
} from '../../../src/threads/budget/index.js';
import { expectRyeError, expectRyeErrorAsync } from '../support.js';
import { SHA, STORE_KINDS, ledgerProblems, tid } from './ledger-fixtures.js';

interface Tree {
  store: BudgetStore;
  root: string;
  mid: string;
  leaf: string;
}

async function tree(
  make: () => BudgetStore,
  limits = { root: 1000, mid: 600, leaf: null as number | null },
): Promise<Tree> {
  const store = make();
  const root = tid('root');
  const mid = tid('mid');
  const leaf = tid('leaf');
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
  await store.openAccount({
    threadId: leaf,
    treeId: root,
    parentThreadId: mid,
    limitNanos: limits.leaf,
  });
  return { store, root, mid, leaf };
}

const key = (thread: string, turn: number, attempt = 0): string =>
  attemptKeyOf(thread, turn, attempt);

describe.each(STORE_KINDS)('%s budget store', (_kind, make) => {
  it('holds the worst case on the thread and every ancestor', async () => {
    const t = await tree(make);
    const result = await t.store.reserve({
      attemptKey: key(t.leaf, 1),
      threadId: t.leaf,
      requestSha256: SHA,
      worstNanos: 250,
    });
    expect(result).toEqual({
      granted: true,
      attemptKey: key(t.leaf, 1),
      worstNanos: 250,
      accounts: [t.leaf, t.mid, t.root],
    });
    const balances = await t.store.balances(t.leaf);
    expect(balances.map((b) => [b.accountId, b.heldNanos, b.availableNanos])).toEqual([
      [t.leaf, 250, null],
      [t.mid, 250, 350],
      [t.root, 250, 750],
    ]);
  });

  it('denies when any finite ancestor lacks room, holds nothing and records the denial', async () => {
    const t = await tree(make);
    await t.store.reserve({
      attemptKey: key(t.leaf, 1),
      threadId: t.leaf,
      requestSha256: SHA,
      worstNanos: 500,
    });
    const denied = await t.store.reserve({
      attemptKey: key(t.leaf, 2),
      threadId: t.leaf,
      requestSha256: SHA,
      worstNanos: 101,
    });
    expect(denied).toEqual({
      granted: false,
      attemptKey: key(t.leaf, 2),
      worstNanos: 101,
      accountId: t.mid,
      reason: 'insufficient',
      availableNanos: 100,
    });
    const error = expectRyeError(() => assertGranted(denied), 'BUDGET_DENIED');
    expect(error.details).toMatchObject({ account: t.mid, available_nanos: 100, worst_nanos: 101 });
    const snapshot = await t.store.snapshot(t.root);
    expect(snapshot.attempts.find((a) => a.attemptKey === key(t.leaf, 2))).toMatchObject({
      state: 'denied',
      reason: `insufficient:${t.mid}`,
    });
    expect(snapshot.debits.filter((d) => d.attemptKey === key(t.leaf, 2))).toEqual([]);
    expect((await t.store.balances(t.leaf)).map((b) => b.heldNanos)).toEqual([500, 500, 500]);
    // exactly the room left fits
    const exact = await t.store.reserve({
      attemptKey: key(t.leaf, 3),
      threadId: t.leaf,
      requestSha256: SHA,
      worstNanos: 100,
    });
    expect(exact.granted).toBe(true);
  });

  it('settles from usage: the rest is released and the spend reaches the root', async () => {
    const t = await tree(make);
    await t.store.reserve({
      attemptKey: key(t.leaf, 1),
      threadId: t.leaf,
      requestSha256: SHA,
      worstNanos: 300,
    });
    await t.store.markIssued(key(t.leaf, 1));
    const settled = await t.store.settle(key(t.leaf, 1), 120);
    expect(settled).toMatchObject({
      state: 'settled',
      chargedNanos: 120,
      committedNanos: 120,
      basis: 'provider_usage',
    });
    expect((await t.store.balances(t.leaf)).map((b) => [b.committedNanos, b.heldNanos])).toEqual([
      [120, 0],
      [120, 0],
      [120, 0],
    ]);
    expect(ledgerProblems(await t.store.snapshot(t.root))).toEqual([]);
  });

  it('charges the full reservation for missing or malformed usage', async () => {
    const t = await tree(make);
    await t.store.reserve({
      attemptKey: key(t.leaf, 1),
      threadId: t.leaf,
      requestSha256: SHA,
      worstNanos: 300,
    });
    await t.store.markIssued(key(t.leaf, 1));
    expect(await t.store.settle(key(t.leaf, 1), null)).toMatchObject({
      state: 'charged_max',
      chargedNanos: 300,
      committedNanos: 300,
      basis: 'reserved_max',
    });
    await t.store.reserve({
      attemptKey: key(t.leaf, 2),
      threadId: t.leaf,
      requestSha256: SHA,
      worstNanos: 10,
    });
    await t.store.markIssued(key(t.leaf, 2));
    expect(await t.store.settle(key(t.leaf, 2), -5)).toMatchObject({
      state: 'charged_max',
      committedNanos: 10,
    });
  });

  it('marks usage above the reservation bound_violated, commits only the reservation, and stops', async () => {
    const t = await tree(make);
    await t.store.reserve({
      attemptKey: key(t.leaf, 1),
      threadId: t.leaf,
      requestSha256: SHA,
      worstNanos: 300,
    });
    await t.store.markIssued(key(t.leaf, 1));
    const result = await t.store.settle(key(t.leaf, 1), 5000);
    expect(result).toMatchObject({
      state: 'bound_violated',
      chargedNanos: 5000,
      committedNanos: 300,
    });
    expectRyeError(() => assertWithinBound(result), 'BUDGET_BOUND_VIOLATED');
    const snapshot = await t.store.snapshot(t.root);
    expect(ledgerProblems(snapshot)).toEqual([]);
    expect(snapshot.accounts.find((a) => a.accountId === t.mid)?.committedNanos).toBe(300);
  });

  it('releases an unsent attempt for free but charges a sent one its maximum', async () => {
    const t = await tree(make);
    await t.store.reserve({
      attemptKey: key(t.leaf, 1),
      threadId: t.leaf,
      requestSha256: SHA,
      worstNanos: 300,
    });
    expect(await t.store.release(key(t.leaf, 1))).toMatchObject({
      state: 'released',
      committedNanos: 0,
    });
    await t.store.reserve({
      attemptKey: key(t.leaf, 2),
      threadId: t.leaf,
      requestSha256: SHA,
      worstNanos: 200,
    });
    await t.store.markIssued(key(t.leaf, 2));
    expect(await t.store.release(key(t.leaf, 2), 'cancelled')).toMatchObject({
      state: 'charged_max',
      committedNanos: 200,
      reason: 'cancelled_after_issue',
    });
    expect((await t.store.balances(t.leaf)).map((b) => b.heldNanos)).toEqual([0, 0, 0]);
  });

  it('releases a sent attempt the provider refused with an HTTP error status for free', async () => {
    const t = await tree(make);
    await t.store.reserve({
      attemptKey: key(t.leaf, 1),
      threadId: t.leaf,
      requestSha256: SHA,
      worstNanos: 300,
    });
    // Only a sent attempt can be refused.
    await expectRyeErrorAsync(() => t.store.refuse(key(t.leaf, 1), 500), 'BUDGET_ATTEMPT_INVALID');
    await t.store.markIssued(key(t.leaf, 1));
    await expectRyeErrorAsync(() => t.store.refuse(key(t.leaf, 1), 200), 'BUDGET_ATTEMPT_INVALID');
    expect(await t.store.refuse(key(t.leaf, 1), 529)).toMatchObject({
      state: 'released',
      committedNanos: 0,
      basis: null,
      reason: 'refused_http_529',
    });
    expect((await t.store.balances(t.leaf)).map((b) => [b.heldNanos, b.committedNanos])).toEqual([
      [0, 0],
      [0, 0],
      [0, 0],
    ]);
    expect(ledgerProblems(await t.store.snapshot(t.root))).toEqual([]);
  });

  it('refuses steps out of order, reused keys and foreign keys, changing nothing', async () => {
    const t = await tree(make);
    const k = key(t.leaf, 1);
    await t.store.reserve({ attemptKey: k, threadId: t.leaf, requestSha256: SHA, worstNanos: 100 });
    const before = await t.store.snapshot(t.root);
    await expectRyeErrorAsync(() => t.store.settle(k, 10), 'BUDGET_ATTEMPT_INVALID');
    await expectRyeErrorAsync(
      () => t.store.reserve({ attemptKey: k, threadId: t.leaf, requestSha256: SHA, worstNanos: 1 }),
      'BUDGET_ATTEMPT_INVALID',
    );
    await expectRyeErrorAsync(
      () =>
        t.store.reserve({
          attemptKey: key(t.mid, 1),
          threadId: t.leaf,
          requestSha256: SHA,
          worstNanos: 1,
        }),
      'BUDGET_ATTEMPT_INVALID',
    );
    await expectRyeErrorAsync(
      () =>
        t.store.reserve({
          attemptKey: `${t.leaf}:1:x`,
          threadId: t.leaf,
          requestSha256: SHA,
          worstNanos: 1,
        }),
      'BUDGET_ATTEMPT_INVALID',
    );
    await expectRyeErrorAsync(
      () =>
        t.store.reserve({
          attemptKey: key(t.leaf, 2),
          threadId: t.leaf,
          requestSha256: 'nope',
          worstNanos: 1,
        }),
      'BUDGET_ATTEMPT_INVALID',
    );
    await expectRyeErrorAsync(
      () =>
        t.store.reserve({
          attemptKey: key(t.leaf, 2),
          threadId: t.leaf,
          requestSha256: SHA,
          worstNanos: 1.5,
        }),
      'BUDGET_AMOUNT_INVALID',
    );
    await expectRyeErrorAsync(() => t.store.markIssued('nothing'), 'BUDGET_ATTEMPT_INVALID');
    await t.store.markIssued(k);
    await expectRyeErrorAsync(() => t.store.markIssued(k), 'BUDGET_ATTEMPT_INVALID');
    await t.store.settle(k, 50);
    await expectRyeErrorAsync(() => t.store.settle(k, 50), 'BUDGET_ATTEMPT_INVALID');
    await expectRyeErrorAsync(() => t.store.release(k), 'BUDGET_ATTEMPT_INVALID');
    const after = await t.store.snapshot(t.root);
    expect(after.attempts).toHaveLength(before.attempts.length);
  });

  it('refuses accounts that exist, lack a live parent, or cross trees', async () => {
    const t = await tree(make);
    const other = tid('other');
    await expectRyeErrorAsync(
      () =>
        t.store.openAccount({
          threadId: t.leaf,
          treeId: t.root,
          parentThreadId: t.mid,
          limitNanos: null,
        }),
      'BUDGET_ACCOUNT_INVALID',
    );
    await expectRyeErrorAsync(
      () =>
        t.store.openAccount({
          threadId: other,
          treeId: t.root,
          parentThreadId: tid('ghost'),
          limitNanos: null,
        }),
      'BUDGET_ACCOUNT_INVALID',
    );
    await expectRyeErrorAsync(
      () =>
        t.store.openAccount({
          threadId: other,
          treeId: other,
          parentThreadId: t.mid,
          limitNanos: null,
        }),
      'BUDGET_ACCOUNT_INVALID',
    );
    await expectRyeErrorAsync(
      () =>
        t.store.openAccount({
          threadId: other,
          treeId: t.root,
          parentThreadId: null,
          limitNanos: null,
        }),
      'BUDGET_ACCOUNT_INVALID',
    );
    await expectRyeErrorAsync(
      () =>
        t.store.openAccount({
          threadId: '../x',
          treeId: '../x',
          parentThreadId: null,
          limitNanos: null,
        }),
      'BUDGET_ACCOUNT_INVALID',
    );
    await expectRyeErrorAsync(() => t.store.balances(tid('ghost')), 'BUDGET_ACCOUNT_INVALID');
    await t.store.close(t.mid);
    await expectRyeErrorAsync(
      () =>
        t.store.openAccount({
          threadId: other,
          treeId: t.root,
          parentThreadId: t.mid,
          limitNanos: null,
        }),
      'BUDGET_ACCOUNT_INVALID',
    );
  });

  it('closing an account ends its subtree: unsent holds released, sent ones charged, later reservations denied', async () => {
    const t = await tree(make);
    await t.store.reserve({
      attemptKey: key(t.leaf, 1),
      threadId: t.leaf,
      requestSha256: SHA,
      worstNanos: 100,
    });
    await t.store.reserve({
      attemptKey: key(t.mid, 1),
      threadId: t.mid,
      requestSha256: SHA,
      worstNanos: 40,
    });
    await t.store.markIssued(key(t.mid, 1));
    const closed = await t.store.close(t.mid);
    expect([...closed.closed].sort()).toEqual([t.leaf, t.mid].sort());
    expect(closed.finalized.map((f) => [f.attemptKey, f.state]).sort()).toEqual(
      [
        [key(t.leaf, 1), 'released'],
        [key(t.mid, 1), 'charged_max'],
      ].sort(),
    );
    const snapshot = await t.store.snapshot(t.root);
    expect(snapshot.accounts.every((a) => a.heldNanos === 0)).toBe(true);
    expect(snapshot.accounts.find((a) => a.accountId === t.root)?.committedNanos).toBe(40);
    expect(ledgerProblems(snapshot)).toEqual([]);
    const late = await t.store.reserve({
      attemptKey: key(t.leaf, 2),
      threadId: t.leaf,
      requestSha256: SHA,
      worstNanos: 1,
    });
    expect(late).toMatchObject({ granted: false, reason: 'closed', accountId: t.leaf });
  });

  it('raiseCommitted raises a lower committed spend, never lowers it, and keeps committed + held within the limit', async () => {
    const t = await tree(make);
    await t.store.reserve({
      attemptKey: key(t.mid, 1),
      threadId: t.mid,
      requestSha256: SHA,
      worstNanos: 100,
    });
    expect(await t.store.raiseCommitted(t.mid, 250)).toEqual({
      accountId: t.mid,
      beforeNanos: 0,
      committedNanos: 250,
      raised: true,
    });
    // Only that account: its ancestors and descendants keep theirs.
    expect((await t.store.balances(t.leaf)).map((b) => [b.committedNanos, b.heldNanos])).toEqual([
      [0, 0],
      [250, 100],
      [0, 100],
    ]);
    expect(await t.store.raiseCommitted(t.mid, 200)).toMatchObject({
      beforeNanos: 250,
      committedNanos: 250,
      raised: false,
    });
    expect(await t.store.raiseCommitted(t.mid, 250)).toMatchObject({ raised: false });
    // mid's limit is 600 with 100 held: raised to 500 at most, so nothing is left to reserve.
    expect(await t.store.raiseCommitted(t.mid, 5000)).toMatchObject({
      beforeNanos: 250,
      committedNanos: 500,
      raised: true,
    });
    expect((await t.store.balances(t.mid))[0]?.availableNanos).toBe(0);
    const denied = await t.store.reserve({
      attemptKey: key(t.leaf, 1),
      threadId: t.leaf,
      requestSha256: SHA,
      worstNanos: 1,
    });
    expect(denied).toMatchObject({ granted: false, accountId: t.mid, reason: 'insufficient' });
    // An unlimited account takes the whole figure; a closed one is raised too.
    await t.store.close(t.leaf);
    expect(await t.store.raiseCommitted(t.leaf, 7000)).toMatchObject({
      committedNanos: 7000,
      raised: true,
    });
    // The held reservation still settles on top of the raised figure.
    await t.store.markIssued(key(t.mid, 1));
    await t.store.settle(key(t.mid, 1), 40);
    expect((await t.store.balances(t.mid))[0]).toMatchObject({ committedNanos: 540, heldNanos: 0 });
  });

  it('raiseCommitted refuses an unknown account and an amount that is not nanos, changing nothing', async () => {
    const t = await tree(make);
    await expectRyeErrorAsync(
      () => t.store.raiseCommitted(tid('ghost'), 10),
      'BUDGET_ACCOUNT_INVALID',
    );
    for (const bad of [-1, 1.5, Number.NaN, Number.MAX_SAFE_INTEGER + 2]) {
      await expectRyeErrorAsync(() => t.store.raiseCommitted(t.root, bad), 'BUDGET_AMOUNT_INVALID');
    }
    expect((await t.store.balances(t.root))[0]?.committedNanos).toBe(0);
  });

  it('setLimit raises or lowers one account’s limit (null = unlimited); what it committed and holds stays', async () => {
    const t = await tree(make);
    await t.store.reserve({
      attemptKey: key(t.mid, 1),
      threadId: t.mid,
      requestSha256: SHA,
      worstNanos: 500,
    });
    // mid (600) has 100 left: a reservation of 300 is denied until the limit is raised.
    const big = { threadId: t.mid, requestSha256: SHA, worstNanos: 300 };
    expect(await t.store.reserve({ ...big, attemptKey: key(t.mid, 2) })).toMatchObject({
      granted: false,
      accountId: t.mid,
    });
    expect(await t.store.setLimit(t.mid, 900)).toEqual({
      accountId: t.mid,
      beforeNanos: 600,
      limitNanos: 900,
      changed: true,
    });
    expect(await t.store.reserve({ ...big, attemptKey: key(t.mid, 3) })).toMatchObject({
      granted: true,
    });
    // Only that account: the root keeps its 1000 and its holds.
    expect((await t.store.balances(t.mid)).map((b) => [b.limitNanos, b.heldNanos])).toEqual([
      [900, 800],
      [1000, 800],
    ]);
    expect(await t.store.setLimit(t.mid, 900)).toMatchObject({ changed: false });
    // Never under what it committed and holds (800): committed + held ≤ limit stays true.
    await expectRyeErrorAsync(() => t.store.setLimit(t.mid, 799), 'BUDGET_AMOUNT_INVALID');
    await t.store.setLimit(t.mid, 800);
    expect((await t.store.balances(t.mid))[0]).toMatchObject({
      limitNanos: 800,
      heldNanos: 800,
      availableNanos: 0,
    });
    expect(await t.store.setLimit(t.mid, null)).toMatchObject({
      beforeNanos: 800,
      limitNanos: null,
    });
    expect((await t.store.balances(t.mid))[0]?.availableNanos).toBeNull();
  });

  it('setLimit refuses an unknown or closed account and a limit that is not nanos, changing nothing', async () => {
    const t = await tree(make);
    await expectRyeErrorAsync(() => t.store.setLimit(tid('ghost'), 10), 'BUDGET_ACCOUNT_INVALID');
    for (const bad of [-1, 1.5, Number.NaN]) {
      await expectRyeErrorAsync(() => t.store.setLimit(t.root, bad), 'BUDGET_AMOUNT_INVALID');
    }
    await t.store.close(t.leaf);
    await expectRyeErrorAsync(() => t.store.setLimit(t.leaf, 10), 'BUDGET_ACCOUNT_INVALID');
    // Its own limit again changes nothing, closed or not.
    expect(await t.store.setLimit(t.leaf, null)).toMatchObject({ changed: false });
    const after = await t.store.balances(t.leaf);
    expect(after.map((b) => b.limitNanos)).toEqual([null, 600, 1000]);
  });

  it('rolls a failed operation back whole', async () => {
    const t = await tree(make, {
      root: null as unknown as number,
      mid: null as unknown as number,
      leaf: null,
    });
    const big = Number.MAX_SAFE_INTEGER - 5;
    await t.store.reserve({
      attemptKey: key(t.root, 1),
      threadId: t.root,
      requestSha256: SHA,
      worstNanos: big,
    });
    // The leaf and mid can take 10 more, the root cannot: the step fails at the root.
    await expectRyeErrorAsync(
      () =>
        t.store.reserve({
          attemptKey: key(t.leaf, 1),
          threadId: t.leaf,
          requestSha256: SHA,
          worstNanos: 10,
        }),
      'BUDGET_AMOUNT_INVALID',
    );
    const snapshot = await t.store.snapshot(t.root);
    expect(snapshot.attempts.map((a) => a.attemptKey)).toEqual([key(t.root, 1)]);
    expect(snapshot.accounts.map((a) => a.heldNanos).sort()).toEqual([0, 0, big].sort());
  });
});
