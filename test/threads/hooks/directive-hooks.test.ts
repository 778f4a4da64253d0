import { afterEach, describe, expect, it } from 'vitest';
import {
  spawnRefusal,
  type HookDirectiveRequest,
  type HookHost,
} from '../../../src/threads/hooks/index.js';
import type { ThreadRun } from '../../../src/threads/loop/thread-run.js';
import type { ResolvedLimits } from '../../../src/threads/directive/index.js';
import { verifiedEvents, type ThreadProject } from '../loop/fixtures.js';
import { hookDirective, hookProject, runDirective } from './fixtures.js';

let open: ThreadProject | undefined;
afterEach(async () => {
  await open?.server.close();
  open = undefined;
});

const DONE = { text: 'done', usage: { in: 50, out: 5 } };

describe('directive hooks (hook children through the HookHost seam)', () => {
  it('runs an after_complete directive hook through the host after the terminal checkpoint, then seals again', async () => {
    const directive = hookDirective({
      name: 'owner',
      outputs: false,
      inputs: '<input name="name" type="string" required="true">App</input>',
      execute: '<directive>apps.*</directive>',
      hooks: `<hook event="after_complete"><directive>apps/{input:name}/build_and_serve</directive>
        <inputs><input name="action" value="start_dev" /></inputs></hook>`,
    });
    const p = (open = await hookProject([{ match: { directive: 'owner' }, turns: [DONE] }], {
      directives: { owner: directive },
    }));
    const asked: HookDirectiveRequest[] = [];
    const host = (): HookHost => ({
      runDirective: async (request) => {
        asked.push(request);
        return { thread_id: 'build_and_serve-child', status: 'completed', outputs: { ok: true } };
      },
    });
    const result = await runDirective(p, 'demo/owner', { name: 'shop' }, { hookHost: host });
    expect(result.status).toBe('completed');
    expect(asked).toMatchObject([
      {
        directiveId: 'apps/shop/build_and_serve',
        inputs: { action: 'start_dev' },
        edge: 'hook',
        event: 'after_complete',
      },
    ]);
    // requireSealed: the transcript ends with a checkpoint after the hook.
    const events = await verifiedEvents(p, result.thread_id);
    expect(events.map((e) => e.type).slice(-4)).toEqual([
      'thread_completed',
      'checkpoint',
      'hook_fired',
      'checkpoint',
    ]);
    expect(events.at(-2)?.payload).toMatchObject({
      directive: 'apps/shop/build_and_serve',
      outcome: 'ok',
      child: 'build_and_serve-child',
    });
  });

  it('runs a directive hook as a real child thread of its owner when no host is given (edge hook)', async () => {
    const owner = hookDirective({
      name: 'lonely',
      outputs: false,
      execute: '<directive>demo.*</directive>',
      hooks: `<hook event="after_complete"><directive>demo/helper</directive>
        <inputs><input name="topic" value="after" /></inputs></hook>`,
    });
    const helper = hookDirective({ name: 'helper', outputs: false, hooks: '' });
    const p = (open = await hookProject(
      [
        { match: { directive: 'lonely' }, turns: [DONE] },
        { match: { directive: 'helper' }, turns: [DONE] },
      ],
      { directives: { lonely: owner, helper } },
    ));
    const result = await runDirective(p, 'demo/lonely', { topic: 'x' });
    expect(result.status).toBe('completed');
    const fired = (await verifiedEvents(p, result.thread_id)).find((e) => e.type === 'hook_fired');
    expect(fired?.payload).toMatchObject({ directive: 'demo/helper', outcome: 'ok' });
    const child = String(fired?.payload['child']);
    expect(child).toMatch(/^helper-/);
    const childEvents = await verifiedEvents(p, child);
    expect(childEvents[0]?.payload).toMatchObject({ parent: result.thread_id, depth: 1 });
  });

  it('stops a self-relaunching after_complete hook at the depth limit (skipped_limit)', async () => {
    const directive = hookDirective({
      name: 'relaunch',
      outputs: false,
      limits: 'max_turns="3" max_spend="0.50" max_depth="2"',
      inputs: '<input name="n" type="string" required="true">Generation</input>',
      execute: '<directive>demo.relaunch</directive>',
      hooks: `<hook event="after_complete"><directive>demo/relaunch</directive>
        <inputs><input name="n" value="{input:n}+" /></inputs></hook>`,
    });
    const p = (open = await hookProject([{ match: { directive: 'relaunch' }, turns: [DONE] }], {
      directives: { relaunch: directive },
    }));
    const asked: { depth: number; request: HookDirectiveRequest }[] = [];
    const children: string[] = [];
    // Stands in for the orchestration's spawnChild: checks spawn and depth
    // from the owner's record, runs the child one level deeper.
    const hostAt =
      (depth: number) =>
      (run: ThreadRun): HookHost => ({
        runDirective: async (request) => {
          asked.push({ depth, request });
          const refusal = spawnRefusal({
            depth,
            spawns: 0,
            limits: run.record.limits as unknown as ResolvedLimits,
          });
          if (refusal !== undefined) throw refusal;
          const child = await runDirective(p, request.directiveId, request.inputs, {
            hookHost: hostAt(depth + 1),
          });
          children.push(child.thread_id);
          return child;
        },
      });
    const root = await runDirective(p, 'demo/relaunch', { n: '' }, { hookHost: hostAt(0) });
    expect(root.status).toBe('completed');
    expect(asked.map((a) => [a.depth, a.request.inputs['n']])).toEqual([
      [0, '+'],
      [1, '++'],
      [2, '+++'],
    ]);
    expect(children).toHaveLength(2);
    const last = await verifiedEvents(p, children[0] as string);
    expect(last.find((e) => e.type === 'hook_fired')?.payload).toMatchObject({
      outcome: 'skipped_limit',
      error: { code: 'THREAD_LIMIT_EXCEEDED' },
    });
    expect(p.server.requests.length).toBe(3);
  });
});
