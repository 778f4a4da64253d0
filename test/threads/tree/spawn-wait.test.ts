import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { threadPaths } from '../../../src/threads/store/index.js';
import { parseUsd } from '../../../src/threads/budget/index.js';
import { rye } from '../../helpers/cli.js';
import { ledgerOf, verifiedEvents } from '../loop/fixtures.js';
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
  limits: 'max_turns="8" max_spend="20.00" max_spawns="4"',
  permissions: `      <execute>
        <directive>demo.worker</directive>
        <tool>t.echo</tool>
      </execute>`,
});

/** Declares more than the orchestrator holds (t/evil) and a larger budget. */
const WORKER = directive({
  name: 'worker',
  limits: 'max_turns="4" max_spend="50.00"',
  permissions: `      <execute>
        <tool>t.echo</tool>
        <tool>t.evil</tool>
      </execute>`,
});

const WAIT = (ids: string[], failFast = true) =>
  execTool('rye/agent/threads/wait_threads', { thread_ids: ids, fail_fast: failFast });

describe('spawn and wait (the wave pattern)', () => {
  it('runs two children in parallel, then one by wait; caps_dropped recorded, limits clamped, every transcript verifies', async () => {
    const p = (open = await treeProject(
      { 'demo/orchestrate': ORCHESTRATOR, 'demo/worker': WORKER },
      [
        {
          match: { directive: 'orchestrate' },
          turns: [
            {
              tool_calls: [
                execDirective('demo/worker', { part: 'a' }, 'spawn'),
                execDirective('demo/worker', { part: 'b' }, 'spawn'),
              ],
              usage: { in: 200, out: 20 },
            },
            { tool_calls: [WAIT(['$spawned:0', '$spawned:1'])], usage: { in: 300, out: 20 } },
            {
              tool_calls: [execDirective('demo/worker', { part: 'c' }, 'wait')],
              usage: { in: 400, out: 20 },
            },
            {
              tool_calls: [
                { name: 'directive_return', input: { outcome: 'success', answer: 'all' } },
              ],
              usage: { in: 500, out: 20 },
            },
          ],
        },
        {
          match: { directive: 'worker', first_user_includes: '"part": "a"' },
          turns: [
            { tool_calls: [execTool('t/evil')], usage: { in: 50, out: 5 } },
            returns('did a'),
          ],
        },
        {
          match: { directive: 'worker', first_user_includes: '"part": "b"' },
          turns: [returns('did b')],
        },
        {
          match: { directive: 'worker', first_user_includes: '"part": "c"' },
          turns: [returns('did c')],
        },
      ],
    ));
    const result = await p.run('demo/orchestrate', { goal: 'build' });
    expect(p.server.problems).toEqual([]);
    expect(result).toMatchObject({ status: 'completed', outputs: { answer: 'all' } });
    const root = result.thread_id;

    const rows = p.registry((db) => db.list({ tree: root }));
    expect(rows).toHaveLength(4);
    expect(rows.every((r) => r.status === 'completed')).toBe(true);
    const edges = p.registry((db) => db.edgesFrom(root));
    expect(edges.map((e) => e.kind)).toEqual(['spawn', 'spawn', 'spawn']);
    const children = edges.map((e) => e.childId);

    // The dropped call is denied and never ran.
    expect(p.ran('evil')).toBe(false);
    for (const child of children) {
      const record = await p.record(child);
      expect(record).toMatchObject({
        parent: root,
        tree: root,
        depth: 1,
        caps_dropped: ['rye.execute.tool.t/evil'],
        limits: { spend: '20.00', turns: 4, spawns: 4 },
        status: 'completed',
      });
      expect(record.token?.jti).toMatch(/^[0-9a-f]{32}$/);
      const events = await verifiedEvents(p, child);
      expect(events[0]).toMatchObject({
        type: 'thread_created',
        payload: { parent: root, depth: 1, caps_dropped: ['rye.execute.tool.t/evil'] },
      });
    }
    const rootEvents = await verifiedEvents(p, root);
    const spawned = rootEvents.filter((e) => e.type === 'child_spawned');
    expect(spawned.map((e) => e.payload['child'])).toEqual(children);
    const settled = rootEvents.filter((e) => e.type === 'child_settled');
    expect(settled.map((e) => e.payload['status'])).toEqual([
      'completed',
      'completed',
      'completed',
    ]);

    // wait_threads answered both children's outputs; the waited child its outputs.
    const results = rootEvents.filter((e) => e.type === 'tool_call_result');
    const waited = results[2]?.payload['output'] as {
      threads: { outputs: unknown }[];
      pending: [];
    };
    expect(waited.pending).toEqual([]);
    expect(waited.threads.map((t) => t.outputs)).toEqual([
      { outcome: 'success', answer: 'did a' },
      { outcome: 'success', answer: 'did b' },
    ]);
    expect(results[3]?.payload['output']).toMatchObject({
      status: 'completed',
      outputs: { answer: 'did c' },
    });

    // Every account under the root: the root's committed spend is its own plus its children's.
    const { snapshot } = await ledgerOf(p, root);
    const own = (id: string) =>
      snapshot.attempts
        .filter((a) => a.threadId === id)
        .reduce((sum, a) => sum + (a.chargedNanos ?? 0), 0);
    const rootAccount = snapshot.accounts.find((a) => a.threadId === root);
    expect(rootAccount?.committedNanos).toBe(
      own(root) + children.reduce((sum, c) => sum + own(c), 0),
    );
    expect(snapshot.accounts.every((a) => a.heldNanos === 0)).toBe(true);
    // rye thread tree / cost: the hierarchy and each thread's spend, from the CLI.
    const cli = (verb: string) =>
      rye(['thread', verb, root, '--project', p.project, '--json'], { env: p.env });
    const tree = await cli('tree');
    expect(tree.code, tree.stderr).toBe(0);
    type View = { thread_id: string; edge: string | null; depth: number; caps_dropped: string[] };
    const view = (JSON.parse(tree.stdout) as { tree: View & { children: View[] } }).tree;
    expect(view).toMatchObject({ thread_id: root, depth: 0, edge: null, caps_dropped: [] });
    expect(view.children.map((c) => [c.thread_id, c.edge, c.depth, c.caps_dropped])).toEqual(
      children.map((c) => [c, 'spawn', 1, ['rye.execute.tool.t/evil']]),
    );
    const cost = await cli('cost');
    expect(cost.code, cost.stderr).toBe(0);
    const spent = JSON.parse(cost.stdout) as { total_usd: string; threads: unknown[] };
    expect(spent.threads).toHaveLength(4);
    expect(parseUsd(spent.total_usd, 'total')).toBe(rootAccount?.committedNanos);
    // No token in any record or transcript.
    for (const id of [root, ...children]) {
      const paths = threadPaths(p.project, id);
      expect(readFileSync(paths.transcript, 'utf8')).not.toMatch(/rye-cap-v1\.[A-Za-z0-9_-]{20}/);
      expect(readFileSync(paths.record, 'utf8')).not.toMatch(/rye-cap-v1\.[A-Za-z0-9_-]{20}/);
    }
  }, 60_000);
});

describe('budget race at the ceiling', () => {
  it('four parallel children racing for a small budget never overspend it; each refused child ends budget_denied', async () => {
    const TIGHT = directive({
      name: 'tight',
      input: 'goal',
      limits: 'max_turns="4" max_spend="0.40"',
      permissions: `      <execute>
        <directive>demo.worker</directive>
      </execute>`,
    });
    const p = (open = await treeProject({ 'demo/tight': TIGHT, 'demo/worker': WORKER }, [
      {
        match: { directive: 'tight' },
        turns: [
          {
            tool_calls: ['a', 'b', 'c', 'd'].map((part) =>
              execDirective('demo/worker', { part }, 'spawn'),
            ),
            usage: { in: 100, out: 10 },
          },
          {
            tool_calls: [WAIT(['$spawned:0', '$spawned:1', '$spawned:2', '$spawned:3'], false)],
            usage: { in: 100, out: 10 },
          },
          returns('raced'),
        ],
      },
      // Each child would run three turns of heavy output if the budget let it.
      {
        match: { directive: 'worker' },
        turns: [
          { text: 'thinking', tool_calls: [execTool('t/echo')], usage: { in: 1000, out: 6000 } },
          { text: 'thinking', tool_calls: [execTool('t/echo')], usage: { in: 1000, out: 6000 } },
          returns('w'),
        ],
      },
    ]));
    const result = await p.run('demo/tight', { goal: 'x' });
    const { snapshot } = await ledgerOf(p, result.thread_id);
    const root = snapshot.accounts.find((a) => a.threadId === result.thread_id);
    expect(root?.committedNanos).toBeLessThanOrEqual(400_000_000);
    expect(snapshot.accounts.every((a) => a.heldNanos === 0)).toBe(true);
    for (const a of snapshot.accounts)
      if (a.limitNanos !== null) expect(a.committedNanos).toBeLessThanOrEqual(a.limitNanos);
    const statuses = p.registry((db) => db.list({ tree: result.thread_id }).map((r) => r.status));
    expect(statuses.slice(1).some((s) => s === 'budget_denied')).toBe(true);
  }, 60_000);
});
