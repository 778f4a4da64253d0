import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { memoryBudgetStore, parseUsd } from '../../../src/threads/budget/index.js';
import {
  compareLedger,
  reconcileLedger,
  transcriptCommitted,
} from '../../../src/threads/control/reconcile-ledger.js';
import { registryDbPath } from '../../../src/threads/store/index.js';
import type { StoredEvent } from '../../../src/threads/transcript/index.js';
import {
  EXECUTE,
  ledgerOf,
  threadProject,
  verifiedEvents,
  type ThreadProject,
} from '../loop/fixtures.js';

let open: ThreadProject | undefined;
afterEach(async () => {
  await open?.server.close();
  open = undefined;
});

const THREAD = 'recon-01jf0000000000000000000000';
const PARENT = 'recon-01jf0000000000000000000001';

let seq = 0;
function budgetEvent(payload: Record<string, unknown>): StoredEvent {
  seq += 1;
  return {
    v: 1,
    seq,
    ts: '2026-01-01T00:00:00.000Z',
    thread: THREAD,
    type: 'budget',
    prev: null,
    payload,
  } as unknown as StoredEvent;
}

/** A reserve/issue/settle of 300 on the thread and its parent, a charged release of 200, a free release and a denial. */
const EVENTS: StoredEvent[] = [
  budgetEvent({
    op: 'reserve',
    attempt_id: `${THREAD}:0:0`,
    accounts: [THREAD, PARENT],
    nanos: 900,
  }),
  budgetEvent({ op: 'issue', attempt_id: `${THREAD}:0:0`, accounts: [THREAD, PARENT], nanos: 900 }),
  budgetEvent({
    op: 'settle',
    attempt_id: `${THREAD}:0:0`,
    accounts: [THREAD, PARENT],
    nanos: 300,
  }),
  budgetEvent({ op: 'release', attempt_id: `${THREAD}:1:0`, accounts: [THREAD], nanos: 200 }),
  budgetEvent({ op: 'release', attempt_id: `${THREAD}:2:0`, accounts: [THREAD], nanos: 0 }),
  budgetEvent({ op: 'deny', attempt_id: `${THREAD}:3:0`, accounts: [THREAD], nanos: 700 }),
];

async function storeWith(committed: number, limit: number | null = 1000) {
  const store = memoryBudgetStore();
  await store.openAccount({
    threadId: THREAD,
    treeId: THREAD,
    parentThreadId: null,
    limitNanos: limit,
  });
  await store.raiseCommitted(THREAD, committed);
  return store;
}

describe('reconciling the ledger with the transcript', () => {
  it('transcriptCommitted() adds what settles and releases committed on the account, nothing else', () => {
    expect(transcriptCommitted(EVENTS, THREAD)).toBe(500);
    expect(transcriptCommitted(EVENTS, PARENT)).toBe(300);
    expect(transcriptCommitted(EVENTS, 'other-01jf0000000000000000000000')).toBe(0);
    expect(transcriptCommitted([], THREAD)).toBe(0);
  });

  it('equal: no mismatch, nothing changes', async () => {
    const store = await storeWith(500);
    expect(await reconcileLedger(store, THREAD, EVENTS)).toEqual({
      account: THREAD,
      ledger_nanos: 500,
      transcript_nanos: 500,
      mismatch: false,
      committed_nanos: 500,
      raised: false,
    });
    expect((await store.balances(THREAD))[0]?.committedNanos).toBe(500);
  });

  it('ledger lower: a mismatch, and the ledger is raised to the transcript', async () => {
    const store = await storeWith(120);
    expect(await reconcileLedger(store, THREAD, EVENTS)).toEqual({
      account: THREAD,
      ledger_nanos: 120,
      transcript_nanos: 500,
      mismatch: true,
      committed_nanos: 500,
      raised: true,
    });
    expect((await store.balances(THREAD))[0]).toMatchObject({
      committedNanos: 500,
      availableNanos: 500,
    });
  });

  it('ledger higher: a mismatch, and the larger figure stands (never lowered)', async () => {
    const store = await storeWith(800);
    expect(await reconcileLedger(store, THREAD, EVENTS)).toEqual({
      account: THREAD,
      ledger_nanos: 800,
      transcript_nanos: 500,
      mismatch: true,
      committed_nanos: 800,
      raised: false,
    });
    expect((await store.balances(THREAD))[0]?.committedNanos).toBe(800);
  });

  it('compareLedger() reports the same comparison and changes nothing', async () => {
    const store = await storeWith(120);
    const [account] = await store.balances(THREAD);
    expect(account).toBeDefined();
    expect(compareLedger(account!, EVENTS)).toMatchObject({
      ledger_nanos: 120,
      transcript_nanos: 500,
      mismatch: true,
      raised: false,
    });
    expect((await store.balances(THREAD))[0]?.committedNanos).toBe(120);
  });
});

interface Result {
  status: string;
  thread_id: string;
  error?: { code: string; details?: { thread_status?: string } };
  cost: { spend_usd: string };
}

interface Verified {
  ok: boolean;
  ledger: { account: string; ledger_usd: string; transcript_usd: string; mismatch: boolean } | null;
}

/** Sonnet's prices (nanos per token): input 3000, output 15000. */
const SPEND = 100 * 3000 + 6000 * 15000; // 90_300_000 of the directive's 100_000_000

describe('a ledger lowered in registry.db (the transcript is the authority)', () => {
  it('verify reports the mismatch, and resume raises the ledger before reserving: a spent budget stays spent', async () => {
    // The first turn settles 0.0903 of max_spend 0.10, so what is left cannot
    // cover the second request's input bound plus the 256-token output floor.
    const p = (open = await threadProject(
      [
        {
          match: { directive: 'summarise' },
          turns: [
            {
              tool_calls: [
                { name: 'rye_load', input: { item_type: 'knowledge', item_id: 'notes/style' } },
              ],
              usage: { in: 100, out: 6000 },
            },
            {
              tool_calls: [
                { name: 'directive_return', input: { outcome: 'success', answer: 'free budget' } },
              ],
              usage: { in: 100, out: 10 },
            },
          ],
        },
      ],
      { limits: 'max_turns="6" max_spend="0.10"' },
    ));
    const first = (await p.run([...EXECUTE, '--json'])).json<Result>();
    expect(first.error, JSON.stringify(first)).toMatchObject({
      code: 'BUDGET_DENIED',
      details: { thread_status: 'budget_denied' },
    });
    expect(parseUsd(first.cost.spend_usd, 'spend')).toBe(SPEND);
    expect(p.server.requests.length).toBe(1);
    const id = first.thread_id;

    const verify = async (): Promise<Verified> => {
      const res = await p.run(['thread', 'verify', id, '--json']);
      expect(res.code, res.stdout + res.stderr).toBe(0);
      return res.json<Verified>();
    };
    expect((await verify()).ledger).toEqual({
      account: id,
      ledger_usd: '0.0903',
      transcript_usd: '0.0903',
      mismatch: false,
    });

    // Whoever can write registry.db (not the signed transcript) gives the account its budget back.
    const db = new Database(registryDbPath(p.project));
    db.prepare('UPDATE account SET committed_nanos = 0 WHERE account_id = ?').run(id);
    db.close();
    expect((await ledgerOf(p, id)).snapshot.accounts[0]?.committedNanos).toBe(0);

    expect((await verify()).ledger).toEqual({
      account: id,
      ledger_usd: '0.00',
      transcript_usd: '0.0903',
      mismatch: true,
    });
    const human = await p.run(['thread', 'verify', id]);
    expect(human.stdout).toContain('ledger: MISMATCH: $0.00 committed, the transcripts $0.0903');

    const resumed = await p.run(['thread', 'resume', id, '--message', 'Try again.', '--json']);
    const doc = resumed.json<Result>();
    // Without the reconciliation the resumed thread would reserve afresh and complete.
    expect(doc.status, resumed.stdout + resumed.stderr).toBe('budget_denied');
    expect(doc.error?.code).toBe('BUDGET_DENIED');
    expect(p.server.requests.length).toBe(1);
    const account = (await ledgerOf(p, id)).snapshot.accounts[0];
    expect(account?.committedNanos).toBeGreaterThanOrEqual(SPEND);
    expect(account?.heldNanos).toBe(0);
    const repairs = (await verifiedEvents(p, id)).filter(
      (e) => e.type === 'repair' && e.payload['kind'] === 'ledger_raised',
    );
    expect(repairs.map((e) => e.payload)).toEqual([
      {
        kind: 'ledger_raised',
        call_ids: [],
        dropped_bytes: 0,
        account: id,
        ledger_nanos: 0,
        transcript_nanos: SPEND,
        committed_nanos: SPEND,
      },
    ]);
    expect((await verify()).ledger).toMatchObject({ ledger_usd: '0.0903', mismatch: false });
  }, 60_000);
});
