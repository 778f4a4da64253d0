import { describe, expect, it } from 'vitest';
import {
  rebuildThread,
  resultContent,
  type AnyPayload,
  type EventType,
  type StoredEvent,
} from '../../../src/threads/transcript/index.js';
import { expectRyeError } from '../support.js';

const T = 'implement_feature-01kdvdna000000000000000000';

function events(...items: [EventType, AnyPayload][]): StoredEvent[] {
  return items.map(([type, payload], seq) => ({
    v: 1,
    seq,
    ts: '2026-01-01T00:00:00.000Z',
    thread: T,
    type,
    prev: null,
    payload,
  }));
}

const created: [EventType, AnyPayload] = ['thread_created', { tree: T }];
const out = (...calls: string[]): [EventType, AnyPayload] => [
  'cognition_out',
  {
    content: [
      { type: 'text', text: `calling ${calls.join(',')}` },
      ...calls.map((id) => ({ type: 'tool_call', id, name: 'rye_load', input: { id } })),
    ],
    usage: { in: 10, out: 5 },
  },
];
const result = (id: string, ok = true): [EventType, AnyPayload] => [
  'tool_call_result',
  ok
    ? { call_id: id, ok, output: { id } }
    : { call_id: id, ok, error: { code: 'CAPABILITY_DENIED', message: 'no' } },
];
const said = (text: string): [EventType, AnyPayload] => ['cognition_in', { content: text }];

describe('rebuildThread()', () => {
  it('rebuilds the conversation in seq order with the system prompt apart', () => {
    const rebuilt = rebuildThread(
      events(created, ['system_prompt', { text: 'sys' }], said('inputs'), out(), said('more')),
    );
    expect(rebuilt.system).toBe('sys');
    expect(rebuilt.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'inputs' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'calling ' }] },
      { role: 'user', content: [{ type: 'text', text: 'more' }] },
    ]);
  });

  it('pairs results by call_id, never by adjacency, folding them in call order', () => {
    const rebuilt = rebuildThread(
      events(
        created,
        said('go'),
        out('a', 'b', 'c'),
        result('c'),
        said('a hook note'),
        result('a', false),
        ['limit_hit', { limit: 'x', current: 1, max: 2 }],
        result('b'),
      ),
    );
    expect(rebuilt.messages).toHaveLength(3);
    const answers = rebuilt.messages[2]?.content ?? [];
    expect(answers.map((p) => (p.type === 'tool_result' ? p.call_id : p.type))).toEqual([
      'a',
      'b',
      'c',
      'text',
    ]);
    expect(answers[0]).toEqual({
      type: 'tool_result',
      call_id: 'a',
      ok: false,
      content: '{"error":{"code":"CAPABILITY_DENIED","message":"no"}}',
    });
    expect(answers[1]).toEqual({
      type: 'tool_result',
      call_id: 'b',
      ok: true,
      content: '{"id":"b"}',
    });
    expect(rebuilt.anomalies).toEqual([]);
  });

  it('answers a call with no result (and reports it), and reports a result with no call', () => {
    const rebuilt = rebuildThread(events(created, said('go'), result('ghost'), out('a')));
    expect(rebuilt.messages[2]?.content[0]).toMatchObject({ call_id: 'a', ok: false });
    expect(
      rebuilt.messages[2]?.content[0]?.type === 'tool_result' &&
        rebuilt.messages[2].content[0].content,
    ).toContain('THREAD_INTERRUPTED');
    expect(rebuilt.anomalies).toEqual([
      { seq: 3, kind: 'missing_result', callId: 'a' },
      { seq: 2, kind: 'orphan_result', callId: 'ghost' },
    ]);
  });

  it('applies a compaction snapped outward so a call and its result go together', () => {
    // seq: 0 created, 1 in, 2 out(a), 3 result a, 4 out(b), 5 result b, 6 in, 7 compaction [3, 4]
    const base: [EventType, AnyPayload][] = [
      created,
      said('start'),
      out('a'),
      result('a'),
      out('b'),
      result('b'),
      said('next'),
    ];
    const rebuilt = rebuildThread(
      events(...base, [
        'compaction',
        { replaces: [3, 4], summary: 'did a and b', by_thread: null },
      ]),
    );
    expect(rebuilt.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'start' },
          { type: 'text', text: 'did a and b' },
          { type: 'text', text: 'next' },
        ],
      },
    ]);
    const partial = rebuildThread(
      events(...base, ['compaction', { replaces: [5, 5], summary: 'did b', by_thread: null }]),
    );
    expect(partial.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(partial.messages[2]?.content.map((p) => (p.type === 'text' ? p.text : p.type))).toEqual([
      'tool_result',
      'did b',
      'next',
    ]);
  });

  it('applies later compactions over earlier summaries', () => {
    const rebuilt = rebuildThread(
      events(
        created,
        said('s'),
        out('a'),
        result('a'),
        ['compaction', { replaces: [2, 3], summary: 'one', by_thread: null }],
        out('b'),
        result('b'),
        ['compaction', { replaces: [1, 6], summary: 'two', by_thread: null }],
      ),
    );
    expect(rebuilt.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'two' }] }]);
  });

  it('counts what a release committed (a request charged its reservation after it left)', () => {
    const rebuilt = rebuildThread(
      events(
        created,
        said('go'),
        ['budget', { op: 'reserve', attempt_id: `${T}:1:0`, accounts: [T], nanos: 900 }],
        ['budget', { op: 'issue', attempt_id: `${T}:1:0`, accounts: [T], nanos: 900 }],
        ['budget', { op: 'release', attempt_id: `${T}:1:0`, accounts: [T], nanos: 900 }],
        ['budget', { op: 'reserve', attempt_id: `${T}:1:1`, accounts: [T], nanos: 900 }],
        ['budget', { op: 'issue', attempt_id: `${T}:1:1`, accounts: [T], nanos: 900 }],
        ['budget', { op: 'release', attempt_id: `${T}:1:1`, accounts: [T], nanos: 0 }],
      ),
    );
    expect(rebuilt.cost.spend_nanos).toBe(900);
    expect(rebuilt.openAttempts).toEqual([]);
  });

  it('reseeds the totals from the last terminal event plus what follows it', () => {
    const rebuilt = rebuildThread(
      events(
        created,
        said('go'),
        ['budget', { op: 'reserve', attempt_id: `${T}:1:0`, accounts: [T], nanos: 900 }],
        ['budget', { op: 'issue', attempt_id: `${T}:1:0`, accounts: [T], nanos: 900 }],
        out('a'),
        ['budget', { op: 'settle', attempt_id: `${T}:1:0`, accounts: [T], nanos: 300 }],
        ['tool_call_start', { call_id: 'a' }],
        result('a'),
        [
          'thread_completed',
          {
            cost: {
              turns: 7,
              tokens_in: 70,
              tokens_out: 35,
              spend_nanos: 5000,
              tool_calls: 9,
              spawns: 2,
            },
          },
        ],
        said('add auth'),
        ['budget', { op: 'reserve', attempt_id: `${T}:8:0`, accounts: [T], nanos: 400 }],
        ['budget', { op: 'settle', attempt_id: `${T}:8:0`, accounts: [T], nanos: 0 }],
        ['budget', { op: 'reserve', attempt_id: `${T}:9:0`, accounts: [T], nanos: 400 }],
        ['budget', { op: 'issue', attempt_id: `${T}:9:0`, accounts: [T], nanos: 400 }],
        out('b'),
        ['capability_denied', { call_id: 'b', required: 'rye.execute.tool.x' }],
        result('b', false),
        ['child_spawned', { child: 'c' }],
      ),
    );
    expect(rebuilt.terminal?.type).toBe('thread_completed');
    expect(rebuilt.cost).toEqual({
      turns: 8,
      tokens_in: 80,
      tokens_out: 40,
      spend_nanos: 5000,
      tool_calls: 10,
      spawns: 3,
    });
    expect(rebuilt.openAttempts).toEqual([`${T}:9:0`]);
  });

  it.each<[string, [EventType, AnyPayload][]]>([
    ['a reused call id', [created, out('a'), result('a'), out('a')]],
    [
      'a part that is neither text nor a call',
      [created, ['cognition_out', { content: [{ type: 'image' }] }]],
    ],
    ['cognition_out content that is not a list', [created, ['cognition_out', { content: 'x' }]]],
    ['cognition_in content that is not text', [created, ['cognition_in', { content: 42 }]]],
    ['a result without ok', [created, ['tool_call_result', { call_id: 'a' }]]],
    [
      'a compaction of the future',
      [created, said('x'), ['compaction', { replaces: [1, 5], summary: 's', by_thread: null }]],
    ],
    ['a terminal event without cost', [created, ['thread_failed', {}]]],
    ['an unknown budget op', [created, ['budget', { op: 'mint', attempt_id: 'x' }]]],
  ])('refuses %s (TRANSCRIPT_INVALID naming the seq)', (_why, items) => {
    const error = expectRyeError(() => rebuildThread(events(...items)), 'TRANSCRIPT_INVALID');
    expect(error.details['seq']).toBe(items.length - 1);
  });
});

describe('resultContent()', () => {
  it('shows strings as they are, other output as JSON, errors as {error}', () => {
    expect(resultContent({ ok: true, output: 'text' })).toBe('text');
    expect(resultContent({ ok: true, output: { a: 1 } })).toBe('{"a":1}');
    expect(resultContent({ ok: true })).toBe('null');
    expect(resultContent({ ok: false, error: { code: 'X', message: 'm', details: 1 } })).toBe(
      '{"error":{"code":"X","message":"m"}}',
    );
  });
});
