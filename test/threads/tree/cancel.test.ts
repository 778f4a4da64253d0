import { writeFileSync } from 'node:fs';
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
  limits: 'max_turns="8" max_spend="20.00"',
  permissions: `      <execute>
        <directive>demo.*</directive>
        <tool>t.*</tool>
      </execute>`,
});

const WORKER = directive({
  name: 'worker',
  limits: 'max_turns="4" max_spend="5.00"',
  permissions: `      <execute>
        <tool>t.sleeper</tool>
        <tool>t.waitfor</tool>
        <directive>demo.worker</directive>
      </execute>`,
});

async function until(check: () => boolean, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 25));
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The host pid of a sleeper, once it runs (the pid it writes is its sandbox's own). */
async function pidOf(p: TreeProject, label: string): Promise<number> {
  let pid: number | undefined;
  await until(() => (pid = p.sleeperPid(label)) !== undefined);
  return pid ?? -1;
}

const SLEEPING = (label: string) => ({
  tool_calls: [execTool('t/sleeper', { label })],
  usage: { in: 50, out: 5 },
});

describe('fail_fast and cancel', () => {
  it('fail_fast: one child fails, its running sibling is cancelled (sibling_failed) with its tool process tree, the finished outputs are returned', async () => {
    const p = (open = await treeProject(
      { 'demo/orchestrate': ORCHESTRATOR, 'demo/worker': WORKER },
      [
        {
          match: { directive: 'orchestrate' },
          turns: [
            {
              tool_calls: [
                execDirective('demo/worker', { part: 'ok' }, 'spawn'),
                execDirective('demo/worker', { part: 'slow' }, 'spawn'),
                execDirective('demo/worker', { part: 'bad' }, 'spawn'),
              ],
              usage: { in: 200, out: 20 },
            },
            {
              tool_calls: [
                execTool('rye/agent/threads/wait_threads', {
                  thread_ids: ['$spawned:0', '$spawned:1', '$spawned:2'],
                  fail_fast: true,
                }),
              ],
              usage: { in: 300, out: 20 },
            },
            returns('replan'),
          ],
        },
        {
          match: { directive: 'worker', first_user_includes: '"part": "ok"' },
          turns: [returns('fine')],
        },
        {
          match: { directive: 'worker', first_user_includes: '"part": "slow"' },
          turns: [SLEEPING('slow')],
        },
        {
          match: { directive: 'worker', first_user_includes: '"part": "bad"' },
          turns: [
            {
              tool_calls: [execTool('t/waitfor', { file: 'slow.seen' })],
              usage: { in: 10, out: 1 },
            },
            returns('broke', 'failure'),
          ],
        },
      ],
    ));
    // "bad" fails only once the test has seen "slow" asleep in its tool.
    const running = p.run('demo/orchestrate', { goal: 'x' });
    const slow = await pidOf(p, 'slow');
    expect(alive(slow)).toBe(true);
    writeFileSync(join(p.dir, 'slow.seen'), '');
    const result = await running;
    expect(p.server.problems).toEqual([]);
    expect(result).toMatchObject({ status: 'completed', outputs: { answer: 'replan' } });
    const events = await verifiedEvents(p, result.thread_id);
    const wait = events.filter((e) => e.type === 'tool_call_result')[3]?.payload['output'] as {
      threads: {
        thread_id: string;
        status: string;
        outputs?: unknown;
        error?: { details?: unknown };
      }[];
      pending: string[];
    };
    expect(wait.pending).toEqual([]);
    const byStatus = Object.fromEntries(wait.threads.map((t) => [t.status, t]));
    expect(Object.keys(byStatus).sort()).toEqual(['cancelled', 'completed', 'failed']);
    expect(byStatus['completed']?.outputs).toEqual({ outcome: 'success', answer: 'fine' });
    expect(byStatus['failed']?.outputs).toEqual({ outcome: 'failure', answer: 'broke' });
    expect(byStatus['cancelled']?.error).toMatchObject({
      code: 'THREAD_CANCELLED',
      details: { reason: 'sibling_failed' },
    });
    expect(alive(slow)).toBe(false);
  }, 60_000);

  it('cancelling the root cancels every descendant and kills their tool processes', async () => {
    const p = (open = await treeProject(
      { 'demo/orchestrate': ORCHESTRATOR, 'demo/worker': WORKER },
      [
        {
          match: { directive: 'orchestrate' },
          turns: [
            {
              tool_calls: [execDirective('demo/worker', { part: 'one' }, 'wait')],
              usage: { in: 200, out: 20 },
            },
          ],
        },
        {
          match: { directive: 'worker', first_user_includes: '"part": "one"' },
          turns: [
            {
              tool_calls: [
                execDirective('demo/worker', { part: 'two' }, 'spawn'),
                execTool('t/sleeper', { label: 'child' }),
              ],
              usage: { in: 50, out: 5 },
            },
          ],
        },
        {
          match: { directive: 'worker', first_user_includes: '"part": "two"' },
          turns: [SLEEPING('grandchild')],
        },
      ],
    ));
    const controller = new AbortController();
    const running = p.run('demo/orchestrate', { goal: 'x' }, controller.signal);
    const pids = [await pidOf(p, 'child'), await pidOf(p, 'grandchild')];
    expect(pids.every(alive)).toBe(true);
    controller.abort('operator');
    const result = await running;
    expect(result.status).toBe('cancelled');
    const rows = p.registry((db) => db.list({ tree: result.thread_id }));
    expect(rows.map((r) => r.status)).toEqual(['cancelled', 'cancelled', 'cancelled']);
    expect(rows.map((r) => r.parentId === null)).toEqual([true, false, false]);
    await until(() => !pids.some(alive), 5_000);
    expect(pids.some(alive)).toBe(false);
  }, 60_000);
});
