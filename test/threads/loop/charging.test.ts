import { afterEach, describe, expect, it } from 'vitest';
import { RyeError } from '../../../src/errors/index.js';
import { memoryBudgetStore, parseUsd } from '../../../src/threads/budget/index.js';
import { endFailedAttempt, refusedStatusOf } from '../../../src/threads/loop/failed-attempt.js';
import {
  EXECUTE,
  ledgerOf,
  threadProject,
  UNLIMITED_SPEND,
  verifiedEvents,
  type ThreadProject,
} from './fixtures.js';

let open: ThreadProject | undefined;
afterEach(async () => {
  await open?.server.close();
  open = undefined;
});

const RETURN = {
  tool_calls: [{ name: 'directive_return', input: { outcome: 'success', answer: 'done' } }],
  usage: { in: 100, out: 10 },
};
const SONNET = (usage: { in: number; out: number }): number => usage.in * 3000 + usage.out * 15000;

interface Result {
  status: string;
  thread_id: string;
  cost: { turns: number; spend_usd: string };
}

describe('charging failed provider requests', () => {
  it('refusedStatusOf() takes only an HTTP error status a provider error carries', () => {
    const failed = (details: Record<string, unknown>) =>
      new RyeError('PROVIDER_REQUEST_FAILED', 'x', details);
    expect(refusedStatusOf(failed({ status: 500 }))).toBe(500);
    expect(refusedStatusOf(failed({ status: 429 }))).toBe(429);
    expect(refusedStatusOf(failed({}))).toBeUndefined(); // a reset: no status
    expect(refusedStatusOf(failed({ status: 200 }))).toBeUndefined();
    expect(refusedStatusOf(failed({ status: '500' }))).toBeUndefined();
    expect(refusedStatusOf(new RyeError('INTERNAL_ERROR', 'x', { status: 500 }))).toBeUndefined();
    expect(refusedStatusOf(new Error('x'))).toBeUndefined();
  });

  it('endFailedAttempt() releases a refusal uncharged and charges a broken request its reservation', async () => {
    const store = memoryBudgetStore();
    const thread = 'charge-01jf0000000000000000000000';
    await store.openAccount({
      threadId: thread,
      treeId: thread,
      parentThreadId: null,
      limitNanos: 1000,
    });
    const sha = 'a'.repeat(64);
    for (const n of [0, 1]) {
      await store.reserve({
        attemptKey: `${thread}:${n}:0`,
        threadId: thread,
        requestSha256: sha,
        worstNanos: 400,
      });
      await store.markIssued(`${thread}:${n}:0`);
    }
    const refused = await endFailedAttempt(
      store,
      `${thread}:0:0`,
      new RyeError('PROVIDER_REQUEST_FAILED', 'x', { status: 503 }),
    );
    expect(refused).toMatchObject({
      state: 'released',
      committedNanos: 0,
      reason: 'refused_http_503',
    });
    const broken = await endFailedAttempt(
      store,
      `${thread}:1:0`,
      new RyeError('PROVIDER_REQUEST_FAILED', 'x', {}),
    );
    expect(broken).toMatchObject({
      state: 'charged_max',
      committedNanos: 400,
      basis: 'reserved_max',
    });
    expect((await store.balances(thread))[0]).toMatchObject({ committedNanos: 400, heldNanos: 0 });
  });

  it('a 500 before any output costs nothing: a small budget survives it and the thread completes', async () => {
    const p = (open = await threadProject([
      { match: { directive: 'summarise' }, turns: [{ fault: 'server_error' }, RETURN] },
    ]));
    // The output cap takes what the limit leaves, so a charged reservation would deny the retry.
    const res = await p.run([...EXECUTE, '--limit', 'spend=0.05', '--json']);
    expect(res.code, res.stdout + res.stderr).toBe(0);
    const doc = res.json<Result>();
    expect(doc.status).toBe('success');
    expect(parseUsd(doc.cost.spend_usd, 'spend')).toBe(SONNET({ in: 100, out: 10 }));
    const { snapshot } = await ledgerOf(p, doc.thread_id);
    expect(snapshot.attempts.map((a) => [a.state, a.reason])).toEqual([
      ['released', 'refused_http_500'],
      ['settled', null],
    ]);
    const releases = (await verifiedEvents(p, doc.thread_id)).filter(
      (e) => e.type === 'budget' && e.payload['op'] === 'release',
    );
    expect(releases.map((e) => e.payload)).toMatchObject([
      { nanos: 0, state: 'released', reason: 'refused_http_500' },
    ]);
  }, 30_000);

  it('a connection broken after the request left keeps the whole reservation (charged_max)', async () => {
    const p = (open = await threadProject(
      [{ match: { directive: 'summarise' }, turns: [{ fault: 'reset' }, RETURN] }],
      UNLIMITED_SPEND,
    ));
    const res = await p.run([...EXECUTE, '--json']);
    expect(res.code, res.stdout + res.stderr).toBe(0);
    const doc = res.json<Result>();
    const { snapshot } = await ledgerOf(p, doc.thread_id);
    const [broken, settled] = snapshot.attempts;
    expect(broken).toMatchObject({ state: 'charged_max', basis: 'reserved_max' });
    expect(settled?.state).toBe('settled');
    expect(parseUsd(doc.cost.spend_usd, 'spend')).toBe(
      (broken?.reservedNanos ?? 0) + SONNET({ in: 100, out: 10 }),
    );
  }, 30_000);

  it('a stream that breaks mid-way keeps the whole reservation too', async () => {
    const p = (open = await threadProject(
      [
        {
          match: { directive: 'summarise' },
          turns: [{ fault: 'reset', after_events: 2, reply: { text: 'half an answer' } }, RETURN],
        },
      ],
      UNLIMITED_SPEND,
    ));
    const res = await p.run([...EXECUTE, '--json']);
    expect(res.code, res.stdout + res.stderr).toBe(0);
    const { snapshot } = await ledgerOf(p, res.json<Result>().thread_id);
    expect(snapshot.attempts.map((a) => a.state)).toEqual(['charged_max', 'settled']);
  }, 30_000);
});
