import { afterEach, describe, expect, it } from 'vitest';
import type { Message } from '../../../src/threads/conversation/index.js';
import { readOwnEvents } from '../../../src/threads/hooks/index.js';
import { threadPaths } from '../../../src/threads/store/index.js';
import { rebuildThread, type StoredEvent } from '../../../src/threads/transcript/index.js';
import { verifiedEvents, type ThreadProject } from '../loop/fixtures.js';
import { SUMMARIZE_TOOL, hookDirective, hookProject, runDirective } from './fixtures.js';

let open: ThreadProject | undefined;
afterEach(async () => {
  await open?.server.close();
  open = undefined;
});

const usage = { in: 50, out: 5 };
const LOAD = {
  tool_calls: [{ name: 'rye_load', input: { item_type: 'knowledge', item_id: 'notes/style' } }],
  usage,
};
const ECHO = {
  tool_calls: [{ name: 'rye_execute', input: { item_type: 'tool', item_id: 't/echo' } }],
  usage,
};
const DONE = { text: 'done', usage };

/** A conversation as role + part kinds and ids, comparable across the wire and the neutral form. */
type Shape = string[];

function wireShape(messages: unknown): Shape {
  return (messages as { role: string; content: unknown }[]).map((m) => {
    const blocks =
      typeof m.content === 'string'
        ? [{ type: 'text', text: m.content }]
        : (m.content as Record<string, unknown>[]);
    const parts = blocks.map((b) =>
      b['type'] === 'text'
        ? `t:${String(b['text'])}`
        : b['type'] === 'tool_use'
          ? `c:${String(b['id'])}`
          : `r:${String(b['tool_use_id'])}`,
    );
    return `${m.role}[${parts.join('|')}]`;
  });
}

function neutralShape(messages: readonly Message[]): Shape {
  return messages.map((m) => {
    const parts = m.content.map((p) =>
      p.type === 'text' ? `t:${p.text}` : p.type === 'tool_call' ? `c:${p.id}` : `r:${p.call_id}`,
    );
    return `${m.role}[${parts.join('|')}]`;
  });
}

/** The conversation rebuilt from the events written before the answer to request `n`. */
function rebuiltBefore(events: readonly StoredEvent[], n: number): readonly Message[] {
  const answers = events.filter((e) => e.type === 'cognition_out');
  const cut = answers[n]?.seq ?? Infinity;
  return rebuildThread(events.filter((e) => e.seq < cut)).messages;
}

describe('compaction', () => {
  it('replaces the oldest turns with a pressure hook summary on turn boundaries; live requests equal the rebuild, and resume continues from it', async () => {
    const directive = hookDirective({
      name: 'compact',
      outputs: false,
      limits: 'max_turns="8" max_spend="0.50"',
      execute: '<tool>t.echo</tool><tool>t.summarize</tool>',
      hooks: '<hook event="context_window_pressure" ratio="0.001"><tool>t/summarize</tool></hook>',
    });
    const p = (open = await hookProject(
      [{ match: { directive: 'compact' }, turns: [LOAD, ECHO, ECHO, DONE, DONE] }],
      { directives: { compact: directive }, tools: { summarize: SUMMARIZE_TOOL } },
    ));
    const result = await runDirective(p, 'demo/compact', { topic: 'x' });
    expect(result.status, JSON.stringify(result.error)).toBe('completed');
    expect(p.server.problems).toEqual([]);
    const paths = threadPaths(p.project, result.thread_id);
    const events = readOwnEvents(paths.transcript, paths.artifacts);
    const compactions = events.filter((e) => e.type === 'compaction');
    // Requests 1 and 2 have no earlier turn to compact; 3 and 4 each compact one.
    expect(compactions).toHaveLength(2);
    const answers = events.filter((e) => e.type === 'cognition_out');
    const firstCall = (answers[0]?.payload['content'] as { id: string }[])[0]?.id as string;
    const firstResult = events.find(
      (e) => e.type === 'tool_call_result' && e.payload['call_id'] === firstCall,
    );
    expect(compactions[0]?.payload).toMatchObject({
      replaces: [answers[0]?.seq, firstResult?.seq],
      by_thread: null,
    });
    expect(String(compactions[0]?.payload['summary'])).toMatch(/^SUMMARY of \d+ chars$/);
    const third = p.server.requests[2]?.body as { messages: unknown };
    expect(JSON.stringify(third.messages)).toContain('SUMMARY of');
    expect(JSON.stringify(third.messages)).not.toContain(firstCall);
    for (const n of [0, 1, 2, 3]) {
      const wire = (p.server.requests[n]?.body as { messages: unknown }).messages;
      expect(wireShape(wire), `request ${n}`).toEqual(neutralShape(rebuiltBefore(events, n)));
    }
    const fired = events.filter((e) => e.type === 'hook_fired').map((e) => e.payload['outcome']);
    expect(fired).toEqual(['ok', 'ok']);
    await verifiedEvents(p, result.thread_id);

    const resumed = await p.run([
      'thread',
      'resume',
      result.thread_id,
      '--message',
      'One more thing.',
      '--json',
    ]);
    expect(resumed.code, resumed.stdout + resumed.stderr).toBe(0);
    expect(p.server.problems).toEqual([]);
    const after = readOwnEvents(paths.transcript, paths.artifacts);
    const last = (p.server.requests[4]?.body as { messages: unknown }).messages;
    expect(wireShape(last)).toEqual(neutralShape(rebuiltBefore(after, 4)));
    expect(JSON.stringify(last)).toContain('One more thing.');
    expect(JSON.stringify(last)).toContain('SUMMARY of');
  });

  it('ends THREAD_CONTEXT_EXHAUSTED when the window overflows and nothing can compact it, sending nothing', async () => {
    const plain = hookDirective({ name: 'plain', outputs: false, hooks: '' });
    const pressed = hookDirective({
      name: 'pressed',
      outputs: false,
      execute: '<tool>t.summarize</tool>',
      hooks: '<hook event="context_window_pressure"><tool>t/summarize</tool></hook>',
    });
    const p = (open = await hookProject([{ turns: [DONE] }], {
      directives: { plain, pressed },
      tools: { summarize: SUMMARIZE_TOOL },
    }));
    for (const id of ['demo/plain', 'demo/pressed']) {
      const result = await runDirective(p, id, { topic: 'x' }, { contextWindow: 100 });
      expect(result.error?.code, id).toBe('THREAD_CONTEXT_EXHAUSTED');
      expect(result.error?.details).toMatchObject({ context_window: 100 });
      const events = await verifiedEvents(p, result.thread_id);
      expect(events.some((e) => e.type === 'hook_fired')).toBe(false);
    }
    expect(p.server.requests).toHaveLength(0);
  });
});
