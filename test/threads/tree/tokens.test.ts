import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { rye } from '../../helpers/cli.js';
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
  // RYE_CAP_TOKEN never reaches a tool process now (CONTAINMENT.md §1.7): a tool reaches rye
  // through the operation channel, tested in test/threads/ops/channel-handler.test.ts, and
  // test/sandbox/escapes.test.ts proves the token is absent from every tool's environment.
  it.skip('a tool of a child thread runs rye under RYE_CAP_TOKEN: held to the child caps (t/evil refused, never ran; t/echo ran); the token is refused once the thread finished', async () => {
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
    const out = called.output as Record<string, { code: number; out: string }>;
    expect(out['t/evil']?.code).toBe(3);
    expect(out['t/evil']?.out).toContain('CAPABILITY_DENIED');
    expect(out['t/echo']?.code, out['t/echo']?.out).toBe(0);
    // Nor may it start a tree of its own (its spawns and budget would escape the thread's).
    expect(out['directive:demo/worker']?.code).toBe(1);
    expect(out['directive:demo/worker']?.out).toContain('THREAD_NESTED_DIRECTIVE');
    expect(p.registry((db) => db.list())).toHaveLength(2);
    expect(p.ran('evil')).toBe(false);
    expect(p.ran('echo')).toBe(true);
    // The tool saw the token; nothing recorded it.
    const token = readFileSync(join(p.dir, 'token.txt'), 'utf8');
    expect(token).toMatch(/^rye-cap-v1\./);
    expect(JSON.stringify(events)).not.toContain(token.slice(11, 60));

    // Replayed after its thread finished: refused, nothing runs.
    const replay = await rye(
      ['execute', 'tool', 't/echo', '--params', '{}', '--project', p.project, '--json'],
      {
        env: { ...p.env, RYE_CAP_TOKEN: token, RYE_TEST_DIR: join(p.dir, 'replay') },
      },
    );
    expect(replay.code).toBe(3);
    expect(replay.stdout + replay.stderr).toContain('CAPABILITY_TOKEN_INVALID');
    expect(replay.stdout + replay.stderr).not.toContain(token.slice(11));
  }, 60_000);
});
