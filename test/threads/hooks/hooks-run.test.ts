import { existsSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import type { HookDirectiveRequest, HookHost } from '../../../src/threads/hooks/index.js';
import { verifiedEvents, type ThreadProject } from '../loop/fixtures.js';
import { hookDirective, hookProject, jsonTool, recordJson, runDirective } from './fixtures.js';

let open: ThreadProject | undefined;
afterEach(async () => {
  await open?.server.close();
  open = undefined;
});

const DONE = { text: 'done', usage: { in: 50, out: 5 } };
const ECHO = {
  tool_calls: [{ name: 'rye_execute', input: { item_type: 'tool', item_id: 't/echo' } }],
  usage: { in: 50, out: 5 },
};

function typesOf(events: { type: string }[]): string[] {
  return events.map((e) => e.type).filter((t) => t !== 'budget' && t !== 'checkpoint');
}

describe('hooks in a running thread', () => {
  it('records hooks_admitted in thread.json and thread_created; a thread_started observation joins the first request', async () => {
    const directive = hookDirective({
      name: 'started',
      outputs: false,
      execute: '<tool>t.note</tool>',
      hooks: `<hook event="thread_started"><tool>t/note</tool>
        <inputs><input name="about" value="{input:topic}" /></inputs></hook>`,
    });
    const p = (open = await hookProject([{ match: { directive: 'started' }, turns: [DONE] }], {
      directives: { started: directive },
      tools: { note: jsonTool({ note: 'remember the milk' }) },
    }));
    const result = await runDirective(p, 'demo/started', { topic: 'milk' });
    expect(result.status, JSON.stringify(result.error)).toBe('completed');
    const admitted = [
      {
        index: 0,
        event: 'thread_started',
        result_mode: 'observation',
        action: { kind: 'tool', item_id: 't/note' },
        inputs: { about: 'milk' },
      },
    ];
    expect(recordJson(p, result.thread_id)['hooks_admitted']).toEqual(admitted);
    const events = await verifiedEvents(p, result.thread_id);
    expect(events[0]?.payload['hooks_admitted']).toEqual(admitted);
    expect(typesOf(events).slice(0, 6)).toEqual([
      'thread_created',
      'system_prompt',
      'cognition_in',
      'hook_fired',
      'cognition_in',
      'cognition_out',
    ]);
    expect(events[3]?.payload).toEqual({
      hook: 0,
      event: 'thread_started',
      tool: 't/note',
      result_mode: 'observation',
      outcome: 'ok',
    });
    const first = JSON.stringify(p.server.requests[0]?.body);
    expect(first).toContain('remember the milk');
    expect(p.server.problems).toEqual([]);
    expect(readFileSync(p.marker, 'utf8')).toContain('"about": "milk"');
  });

  it('refuses a hook as confused deputy: a tool or directive outside the owner capabilities never runs', async () => {
    const directive = hookDirective({
      name: 'deputy',
      outputs: false,
      hooks: `<hook event="thread_started" result_mode="discard"><tool>t/evil</tool></hook>
        <hook event="after_complete"><directive>demo/deputy</directive></hook>`,
    });
    const p = (open = await hookProject([{ match: { directive: 'deputy' }, turns: [DONE] }], {
      directives: { deputy: directive },
    }));
    const asked: HookDirectiveRequest[] = [];
    const host = (): HookHost => ({
      runDirective: async (request) => {
        asked.push(request);
        throw new Error('the host must not be reached');
      },
    });
    const result = await runDirective(p, 'demo/deputy', { topic: 'x' }, { hookHost: host });
    expect(result.status).toBe('completed');
    const fired = (await verifiedEvents(p, result.thread_id)).filter(
      (e) => e.type === 'hook_fired',
    );
    expect(fired.map((e) => [e.payload['outcome'], e.payload['error']])).toEqual([
      ['denied', expect.objectContaining({ code: 'CAPABILITY_DENIED' })],
      ['denied', expect.objectContaining({ code: 'CAPABILITY_DENIED' })],
    ]);
    expect(existsSync(p.marker)).toBe(false);
    expect(asked).toEqual([]);
  });

  it('a hook tool granted through its runtime (the chain rule) runs, as a model call would', async () => {
    // The worked example's build_and_serve grants node_runtime and its error hook stops the
    // dev server: a hook tool is checked like a model call, chain rule included.
    const directive = hookDirective({
      name: 'chained',
      outputs: false,
      execute: '<tool>rye.core.runtimes.python_script_runtime</tool>',
      hooks: `<hook event="thread_started" result_mode="discard"><tool>t/echo</tool></hook>`,
    });
    const p = (open = await hookProject([{ match: { directive: 'chained' }, turns: [DONE] }], {
      directives: { chained: directive },
    }));
    const result = await runDirective(p, 'demo/chained', { topic: 'x' });
    expect(result.status).toBe('completed');
    const fired = (await verifiedEvents(p, result.thread_id)).filter(
      (e) => e.type === 'hook_fired',
    );
    expect(fired.map((e) => [e.payload['outcome'], e.payload['error']])).toEqual([
      ['ok', undefined],
    ]);
    expect(existsSync(p.marker)).toBe(true);
  });

  it('fires after_step after each continuing turn and the limit hook of the limit that stopped the thread', async () => {
    const directive = hookDirective({
      name: 'limited',
      limits: 'max_turns="1" max_spend="0.50"',
      execute: '<tool>t.echo</tool><tool>t.note</tool>',
      hooks: `<hook event="after_step"><tool>t/note</tool></hook>
        <hook event="limit" when="spend_exceeded"><tool>t/note</tool></hook>
        <hook event="limit" when="turns_exceeded"><tool>t/note</tool></hook>`,
    });
    const p = (open = await hookProject([{ match: { directive: 'limited' }, turns: [ECHO] }], {
      directives: { limited: directive },
      tools: { note: jsonTool({ note: 'n' }) },
    }));
    const result = await runDirective(p, 'demo/limited', { topic: 'x' });
    expect(result.error?.code).toBe('THREAD_LIMIT_EXCEEDED');
    const events = await verifiedEvents(p, result.thread_id);
    expect(typesOf(events).slice(-4)).toEqual([
      'hook_fired',
      'limit_hit',
      'hook_fired',
      'thread_error',
    ]);
    const fired = events.filter((e) => e.type === 'hook_fired').map((e) => e.payload);
    expect(fired.map((f) => [f['hook'], f['event'], f['when'], f['outcome']])).toEqual([
      [0, 'after_step', undefined, 'ok'],
      [2, 'limit', 'turns_exceeded', 'ok'],
    ]);
  });

  it('adds an after_step observation to the tool results message of the next request', async () => {
    const directive = hookDirective({
      name: 'observed',
      outputs: false,
      execute: '<tool>t.echo</tool><tool>t.note</tool>',
      hooks: '<hook event="after_step" result_mode="observation"><tool>t/note</tool></hook>',
    });
    const p = (open = await hookProject(
      [{ match: { directive: 'observed' }, turns: [ECHO, DONE] }],
      { directives: { observed: directive }, tools: { note: jsonTool({ note: 'step seen' }) } },
    ));
    const result = await runDirective(p, 'demo/observed', { topic: 'x' });
    expect(result.status, JSON.stringify(result.error)).toBe('completed');
    expect(p.server.problems).toEqual([]);
    const messages = (
      p.server.requests[1]?.body as { messages: { role: string; content: { type: string }[] }[] }
    ).messages;
    expect(messages.at(-1)?.role).toBe('user');
    expect(messages.at(-1)?.content.map((b) => b.type)).toEqual(['tool_result', 'text']);
    expect(JSON.stringify(messages.at(-1))).toContain('step seen');
  });

  it('retries a failed provider call when an error hook answers {action: "retry"}; an invalid answer is ignored', async () => {
    const directive = (name: string) =>
      hookDirective({
        name,
        outputs: false,
        // A failed issued attempt is charged its reservation: leave room for a second.
        limits: 'max_turns="3" max_spend="5.00"',
        execute: '<tool>t.decide</tool>',
        hooks: '<hook event="error"><tool>t/decide</tool></hook>',
      });
    const script = (name: string) => ({
      match: { directive: name },
      turns: [{ fault: 'auth' as const }, DONE],
    });
    const p = (open = await hookProject([script('retried')], {
      directives: { retried: directive('retried') },
      tools: { decide: jsonTool({ action: 'retry' }) },
    }));
    const result = await runDirective(p, 'demo/retried', { topic: 'x' });
    expect(result.status, JSON.stringify(result.error)).toBe('completed');
    const fired = (await verifiedEvents(p, result.thread_id)).filter(
      (e) => e.type === 'hook_fired',
    );
    expect(fired.map((e) => [e.payload['event'], e.payload['outcome']])).toEqual([['error', 'ok']]);
    await p.server.close();

    const q = (open = await hookProject([script('ignored')], {
      directives: { ignored: directive('ignored') },
      tools: { decide: jsonTool({ action: 'maybe' }) },
    }));
    const failed = await runDirective(q, 'demo/ignored', { topic: 'x' });
    expect(failed.error?.code).toBe('PROVIDER_AUTH_FAILED');
    const events = await verifiedEvents(q, failed.thread_id);
    expect(events.find((e) => e.type === 'hook_fired')?.payload).toMatchObject({
      outcome: 'invalid_control',
      error: { code: 'THREAD_HOOK_CONTROL_INVALID' },
    });
    expect(q.server.requests.length).toBe(1);
  });
});
