import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { verifiedEvents } from '../loop/fixtures.js';
import {
  directive,
  execDirective,
  execTool,
  returns,
  treeProject,
  type TreeProject,
} from './fixtures.js';

let open: TreeProject | undefined;
afterEach(async () => {
  await open?.server.close();
  open = undefined;
});

const ORCHESTRATOR = directive({
  name: 'orchestrate',
  input: 'goal',
  limits: 'max_turns="6" max_spend="20.00"',
  permissions: `      <execute>
        <directive>demo.worker</directive>
        <tool>t.caller</tool>
        <tool>t.echo</tool>
      </execute>`,
});

/** Holds t/caller and t/echo (through its parent) but declares t/evil too: dropped. */
const WORKER = directive({
  name: 'worker',
  limits: 'max_turns="4" max_spend="5.00"',
  permissions: `      <execute>
        <tool>t.caller</tool>
        <tool>t.echo</tool>
        <tool>t.evil</tool>
      </execute>`,
});

describe('capability tokens across the tool boundary', () => {
  // A tool reaches rye through the operation channel, never with a token (CONTAINMENT.md §1.7).
  it('a tool of a child thread asks rye over fd 3: held to the child caps (t/evil refused, never ran; t/echo ran), no nested tree, and no token in its environment', async () => {
    const p = (open = await treeProject(
      { 'demo/orchestrate': ORCHESTRATOR, 'demo/worker': WORKER },
      [
        {
          match: { directive: 'orchestrate' },
          turns: [
            {
              tool_calls: [execDirective('demo/worker', { part: 'a' }, 'wait')],
              usage: { in: 100, out: 10 },
            },
            returns('done'),
          ],
        },
        {
          match: { directive: 'worker' },
          turns: [
            {
              tool_calls: [
                execTool('t/caller', { tools: ['t/evil', 't/echo', 'directive:demo/worker'] }),
              ],
              usage: { in: 50, out: 5 },
            },
            returns('called'),
          ],
        },
      ],
    ));
    const result = await p.run('demo/orchestrate', { goal: 'x' });
    expect(p.server.problems).toEqual([]);
    expect(result.status).toBe('completed');
    const [child] = p.registry((db) => db.edgesFrom(result.thread_id)).map((e) => e.childId);
    const events = await verifiedEvents(p, child ?? '');
    const called = events.find((e) => e.type === 'tool_call_result')?.payload as {
      output: unknown;
    };
    const out = called.output as Record<string, { status: string; code: string | null }>;
    expect(out['t/evil']).toEqual({ status: 'error', code: 'CAPABILITY_DENIED' });
    expect(out['t/echo']).toEqual({ status: 'success', code: null });
    // Nor may it start a tree of its own (its spawns and budget would escape the thread's).
    expect(out['directive:demo/worker']).toEqual({
      status: 'error',
      code: 'THREAD_NESTED_DIRECTIVE',
    });
    expect(p.registry((db) => db.list())).toHaveLength(2);
    expect(p.ran('evil')).toBe(false);
    expect(p.ran('echo')).toBe(true);
    // Each request is on the child's record, under the tool call that made it.
    expect(events.filter((e) => e.type === 'nested_call')).toHaveLength(3);
    // The tool saw no token: there is nothing to replay.
    expect(readFileSync(join(p.dir, 'token.txt'), 'utf8')).toBe('');
  }, 60_000);
});
