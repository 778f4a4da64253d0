import { describe, expect, it } from 'vitest';
import { planCompaction, renderSpan } from '../../../src/threads/hooks/index.js';
import {
  rebuildThread,
  type AnyPayload,
  type EventType,
  type StoredEvent,
} from '../../../src/threads/transcript/index.js';

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

const out = (...calls: string[]): [EventType, AnyPayload] => [
  'cognition_out',
  {
    content: [
      { type: 'text', text: `calling ${calls.join(',')}` },
      ...calls.map((id) => ({ type: 'tool_call', id, name: 'rye_load', input: { id } })),
    ],
  },
];
const result = (id: string): [EventType, AnyPayload] => [
  'tool_call_result',
  { call_id: id, ok: true, output: `result ${id}` },
];
const said = (text: string): [EventType, AnyPayload] => ['cognition_in', { content: text }];
const created: [EventType, AnyPayload] = ['thread_created', { tree: T }];

describe('planCompaction()', () => {
  it('keeps the inputs and the last assistant turn; the span covers whole turns with their results', () => {
    // seq: 0 created, 1 in, 2 out(a,b), 3 result b, 4 result a, 5 note, 6 out(c), 7 result c, 8 out(d), 9 result d
    const items: [EventType, AnyPayload][] = [
      created,
      said('inputs'),
      out('a', 'b'),
      result('b'),
      result('a'),
      said('note'),
      out('c'),
      result('c'),
      out('d'),
      result('d'),
    ];
    const all = events(...items);
    const span = planCompaction(rebuildThread(all).units);
    expect(span).toMatchObject({ from: 2, to: 7 });
    expect(renderSpan(span!.units, 10_000)).toBe(
      [
        'assistant: calling a,b',
        'assistant called rye_load {"id":"a"}',
        'assistant called rye_load {"id":"b"}',
        'result of a (ok): result a',
        'result of b (ok): result b',
        'user: note',
        'assistant: calling c',
        'assistant called rye_load {"id":"c"}',
        'result of c (ok): result c',
      ].join('\n'),
    );
    const compacted = rebuildThread(
      events(...items, [
        'compaction',
        { replaces: [span!.from, span!.to], summary: 'S', by_thread: null },
      ]),
    );
    expect(compacted.messages.map((m) => m.content.map((p) => p.type).join(','))).toEqual([
      'text,text',
      'text,tool_call',
      'tool_result',
    ]);
    expect(compacted.messages[0]?.content[1]).toEqual({ type: 'text', text: 'S' });
  });

  it('has nothing to compact before a second assistant turn', () => {
    expect(planCompaction(rebuildThread(events(created, said('inputs'))).units)).toBeNull();
    expect(
      planCompaction(rebuildThread(events(created, said('in'), out('a'), result('a'))).units),
    ).toBeNull();
  });

  it('compacts an earlier summary again with the turns after it', () => {
    const all = events(
      created,
      said('inputs'),
      out('a'),
      result('a'),
      ['compaction', { replaces: [2, 3], summary: 'S1', by_thread: null }],
      out('b'),
      result('b'),
      out('c'),
      result('c'),
    );
    const span = planCompaction(rebuildThread(all).units);
    expect(span).toMatchObject({ from: 2, to: 6 });
    expect(renderSpan(span!.units, 10_000).split('\n')[0]).toBe('user: S1');
  });

  it('caps the rendered span as head and tail', () => {
    const long = 'x'.repeat(5_000);
    const units = rebuildThread(
      events(created, said('in'), said(long), out('a'), result('a'), out('b')),
    ).units;
    const text = renderSpan(planCompaction(units)!.units, 1_000);
    expect(text.length).toBeLessThanOrEqual(1_000);
    expect(text).toContain('characters left out');
  });
});
