import { readdirSync } from 'node:fs';
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
import { threadsRoot } from '../../../src/threads/store/index.js';

let open: TreeProject | undefined;
afterEach(async () => {
  await open?.server.close();
  open = undefined;
});

const BOMB = directive({
  name: 'bomb',
  limits: 'max_turns="4" max_spend="20.00" max_depth="2" max_spawns="1"',
  permissions: `      <execute>
        <directive>demo.bomb</directive>
      </execute>`,
});

const level = (n: number) => ({
  match: { directive: 'bomb', first_user_includes: `"part": "${n}"` },
  turns: [
    {
      tool_calls: [execDirective('demo/bomb', { part: String(n + 1) }, 'wait')],
      usage: { in: 50, out: 5 },
    },
    returns(`level ${n}`),
  ],
});

describe('spawn and depth limits, from the trusted record', () => {
  it('a self-spawning directive stops at max_depth: the thread that tries goes error (limit depth), no deeper thread exists', async () => {
    const p = (open = await treeProject({ 'demo/bomb': BOMB }, [level(0), level(1), level(2)]));
    const result = await p.run('demo/bomb', { part: '0' });
    expect(p.server.problems).toEqual([]);
    expect(result.status).toBe('completed');
    const rows = p.registry((db) => db.list({ tree: result.thread_id }));
    expect(rows).toHaveLength(3);
    const deepest = rows[2];
    expect(deepest?.status).toBe('error');
    const events = await verifiedEvents(p, deepest?.threadId ?? '');
    expect(events.find((e) => e.type === 'limit_hit')?.payload).toEqual({
      limit: 'depth',
      current: 3,
      max: 2,
    });
    expect(events.at(-2)?.payload['error']).toMatchObject({
      code: 'THREAD_LIMIT_EXCEEDED',
      details: { limit: 'depth' },
    });
    expect(readdirSync(threadsRoot(p.project)).filter((d) => d.startsWith('bomb-'))).toHaveLength(
      3,
    );
  }, 60_000);

  it('spawns past max_spawns in one batch: the extra child never exists and the parent stops (limit spawns)', async () => {
    const WIDE = directive({
      name: 'wide',
      limits: 'max_turns="4" max_spend="20.00" max_spawns="2"',
      permissions: `      <execute>
        <directive>demo.bomb</directive>
      </execute>`,
    });
    const p = (open = await treeProject({ 'demo/bomb': BOMB, 'demo/wide': WIDE }, [
      {
        match: { directive: 'wide' },
        turns: [
          {
            tool_calls: [
              execDirective('demo/bomb', { part: 'x' }, 'spawn'),
              execDirective('demo/bomb', { part: 'y' }, 'spawn'),
              execDirective('demo/bomb', { part: 'z' }, 'spawn'),
            ],
            usage: { in: 50, out: 5 },
          },
        ],
      },
      { match: { directive: 'bomb' }, turns: [returns('child')] },
    ]));
    const result = await p.run('demo/wide', { part: 'w' });
    expect(result).toMatchObject({
      status: 'error',
      error: { code: 'THREAD_LIMIT_EXCEEDED', details: { limit: 'spawns', current: 3, max: 2 } },
    });
    const rows = p.registry((db) => db.list({ tree: result.thread_id }));
    expect(rows).toHaveLength(3);
    expect(rows.slice(1).every((r) => ['completed', 'cancelled'].includes(r.status))).toBe(true);
  }, 60_000);

  it('the thread tools act on own descendants only: an unknown or malformed id is CAPABILITY_DENIED', async () => {
    const p = (open = await treeProject({ 'demo/bomb': BOMB }, [
      {
        match: { directive: 'bomb' },
        turns: [
          {
            tool_calls: [
              execTool('rye/agent/threads/cancel_thread', {
                thread_id: 'bomb-01jf00000000000000000000zz',
              }),
              execTool('rye/agent/threads/wait_threads', { thread_ids: ['../../etc'] }),
            ],
            usage: { in: 50, out: 5 },
          },
          returns('done'),
        ],
      },
    ]));
    const result = await p.run('demo/bomb', { part: '0' });
    expect(result.status).toBe('completed');
    const events = await verifiedEvents(p, result.thread_id);
    const denied = events.filter((e) => e.type === 'tool_call_result').slice(0, 2);
    expect(denied.map((e) => (e.payload['error'] as { code: string }).code)).toEqual([
      'CAPABILITY_DENIED',
      'CAPABILITY_DENIED',
    ]);
  }, 60_000);
});
