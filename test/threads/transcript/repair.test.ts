import { appendFileSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  planRepair,
  rebuildThread,
  repairTranscript,
} from '../../../src/threads/transcript/index.js';
import { expectRyeError } from '../support.js';
import { newTranscript, user, verifyFile, writeTurn } from './transcript-fixtures.js';

function repair(t: ReturnType<typeof newTranscript>): ReturnType<typeof repairTranscript> {
  const verified = verifyFile(t.path, t.thread);
  return repairTranscript({
    path: t.path,
    artifactsDir: t.artifacts,
    thread: t.thread,
    clock: t.clock,
    signer: user.signer,
    verified,
  });
}

describe('repairTranscript()', () => {
  it('cuts a torn final line, records it, re-seals, and never redoes it', () => {
    const t = newTranscript();
    writeTurn(t.writer, ['c1']);
    t.writer.checkpoint(user.signer);
    t.writer.close();
    const sound = statSync(t.path).size;
    appendFileSync(t.path, '{"v":1,"seq":5,"ts":"2026-01-01T00:00:0'); // the crash cut this write
    expect(verifyFile(t.path, t.thread).tornTail).toEqual({ offset: sound, bytes: 39 });

    const first = repair(t);
    first.writer.close();
    expect(first.appended.map((e) => e.type)).toEqual(['repair', 'checkpoint']);
    expect(first.appended[0]?.payload).toEqual({
      kind: 'torn_tail',
      call_ids: [],
      dropped_bytes: 39,
    });
    const after = verifyFile(t.path, t.thread, true);
    expect(after.tornTail).toBeNull();
    expect(after.events.map((e) => e.seq)).toEqual([0, 1, 2, 3, 4, 5, 6]);

    const again = repair(t);
    again.writer.close();
    expect(again.appended).toEqual([]);
    expect(verifyFile(t.path, t.thread, true).events).toHaveLength(7);
  });

  it('answers each dangling call with a persisted THREAD_INTERRUPTED result, in call order', () => {
    const t = newTranscript();
    t.writer.append('cognition_out', {
      content: [
        { type: 'tool_call', id: 'a', name: 'rye_execute', input: {} },
        { type: 'tool_call', id: 'b', name: 'rye_execute', input: {} },
        { type: 'tool_call', id: 'c', name: 'rye_execute', input: {} },
      ],
      stop_reason: 'tool_use',
      usage: { in: 1, out: 1 },
      cost_nanos: 1,
      provider_msg_id: null,
    });
    t.writer.append('tool_call_result', {
      call_id: 'b',
      ok: true,
      output: 'done',
      bytes: 4,
      truncated: false,
    });
    t.writer.close();
    expect(planRepair(verifyFile(t.path, t.thread)).danglingCallIds).toEqual(['a', 'c']);

    const { writer, appended } = repair(t);
    writer.close();
    expect(appended.map((e) => e.type)).toEqual([
      'repair',
      'tool_call_result',
      'tool_call_result',
      'checkpoint',
    ]);
    expect(appended[0]?.payload).toEqual({
      kind: 'dangling_calls',
      call_ids: ['a', 'c'],
      dropped_bytes: 0,
    });
    expect(appended[1]?.payload).toMatchObject({
      call_id: 'a',
      ok: false,
      error: { code: 'THREAD_INTERRUPTED' },
    });

    const verified = verifyFile(t.path, t.thread, true);
    const rebuilt = rebuildThread(verified.events);
    expect(rebuilt.anomalies).toEqual([]);
    expect(
      rebuilt.messages[1]?.content.map((p) =>
        p.type === 'tool_result' ? [p.call_id, p.ok] : p.type,
      ),
    ).toEqual([
      ['a', false],
      ['b', true],
      ['c', false],
    ]);
    const again = repair(t);
    again.writer.close();
    expect(again.appended).toEqual([]);
  });

  it('re-seals a chained but unsealed tail', () => {
    const t = newTranscript();
    t.writer.append('cognition_in', { content: 'x' });
    t.writer.close();
    const { writer, appended } = repair(t);
    writer.close();
    expect(appended.map((e) => e.type)).toEqual(['checkpoint']);
    expect(verifyFile(t.path, t.thread, true).unsealed).toBe(0);
  });

  it('refuses a transcript with no complete event', () => {
    const t = newTranscript();
    t.writer.close();
    writeFileSync(t.path, readFileSync(t.path).subarray(0, 40));
    expectRyeError(() => repair(t), 'TRANSCRIPT_INVALID');
  });
});
