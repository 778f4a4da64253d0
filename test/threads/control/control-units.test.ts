import { setTimeout as delay } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { eventLine } from '../../../src/cli/commands/thread-tail.js';
import { parseCancelReason } from '../../../src/threads/control/index.js';
import { watchCancelRequests } from '../../../src/threads/loop/index.js';
import { outcomeOf, terminalEventOf } from '../../../src/threads/outcome/index.js';
import {
  CancelRequests,
  RegistryDb,
  registryDbPath,
  type ThreadRecord,
} from '../../../src/threads/store/index.js';
import type { StoredEvent } from '../../../src/threads/transcript/index.js';
import { expectRyeError } from '../support.js';
import { tempProject, threadId } from '../store/store-fixtures.js';

function event(seq: number, type: string, payload: Record<string, unknown>): StoredEvent {
  return {
    v: 1,
    seq,
    ts: '2026-11-24T10:11:12.345Z',
    thread: 'x',
    type: type as StoredEvent['type'],
    prev: null,
    payload,
  };
}

describe('parseCancelReason()', () => {
  it('escapes control characters and refuses an empty or overlong reason', () => {
    expect(parseCancelReason('  stop\u001b[2J now ')).toBe('stop\\x1b[2J now');
    expectRyeError(() => parseCancelReason('   '), 'USAGE_INVALID_ARGUMENT');
    expectRyeError(() => parseCancelReason('x'.repeat(501)), 'USAGE_INVALID_ARGUMENT');
  });
});

describe('watchCancelRequests()', () => {
  it('calls back once for a request made after it started, and ignores older ones', async () => {
    const db = RegistryDb.open(registryDbPath(tempProject()));
    const id = threadId('watched');
    db.insertThread({ threadId: id, treeId: id, parentId: null, directiveId: 'd' });
    const requests = new CancelRequests(db.db);
    requests.request(id, 'for an earlier owner', 1000);
    const seen: string[] = [];
    const stop = watchCancelRequests(db, id, (r) => seen.push(r), {
      sinceMs: 2000,
      intervalMs: 5,
    });
    await delay(30);
    expect(seen).toEqual([]);
    requests.request(id, 'stop now', 3000);
    await delay(30);
    requests.request(id, 'again', 4000);
    await delay(30);
    expect(seen).toEqual(['stop now']);
    stop();
    db.close();
  });
});

describe('outcomeOf() and terminalEventOf()', () => {
  it('take status, outputs, error and cost from the record and the summary from its own terminal event', () => {
    const record = {
      thread_id: 'x',
      status: 'completed',
      outputs: { answer: 'a' },
      cost: {
        turns: 2,
        tokens_in: 10,
        tokens_out: 5,
        spend_nanos: 1_500_000,
        tool_calls: 1,
        spawns: 0,
      },
    } as unknown as ThreadRecord;
    const events = [
      event(0, 'thread_created', {}),
      event(1, 'thread_completed', { summary: 'done', cost: {} }),
      event(2, 'checkpoint', {}),
    ];
    expect(outcomeOf(record, terminalEventOf(events, 'completed'))).toEqual({
      thread_id: 'x',
      status: 'completed',
      outputs: { answer: 'a' },
      summary: 'done',
      cost: {
        turns: 2,
        tokens_in: 10,
        tokens_out: 5,
        spend_usd: '0.0015',
        tool_calls: 1,
        spawns: 0,
      },
    });
    // A terminal event of another status (the record wins) gives no summary.
    expect(terminalEventOf(events, 'failed')).toBeUndefined();
    expect(outcomeOf(record, undefined, 'interrupted').status).toBe('interrupted');
  });
});

describe('eventLine()', () => {
  it('gives one readable line per event, newlines folded', () => {
    expect(eventLine(event(3, 'cognition_in', { content: 'two\nlines' }))).toBe(
      '   3 10:11:12.345 cognition_in     two ⏎ lines',
    );
    expect(
      eventLine(
        event(9, 'budget', {
          op: 'release',
          attempt_id: 'x:1:0',
          nanos: 0,
          state: 'released',
          reason: 'refused_http_500',
        }),
      ),
    ).toContain('release 1:0 0 nanos released (refused_http_500)');
    expect(
      eventLine(
        event(12, 'thread_cancelled', {
          error: { code: 'THREAD_CANCELLED', message: 'm' },
          cost: { turns: 1 },
        }),
      ),
    ).toContain('THREAD_CANCELLED: m (1 turns)');
    expect(
      eventLine(
        event(14, 'limits_set', {
          limits: { turns: 40, spend: '2.50', tokens: 100 },
          previous: { turns: 25, spend: '2.50', tokens: 100 },
          fp: 'abc',
          sig: 's',
        }),
      ),
    ).toContain('by the operator (key abc): turns 25 → 40');
  });
});
