import { afterEach, describe, expect, it } from 'vitest';
import { EXECUTE, threadProject, verifiedEvents, type ThreadProject } from './fixtures.js';

/*
 * A tool's requests on the operation channel, under a thread (CONTAINMENT.md
 * §1.7): each is a sealed `nested_call` event under its tool call and counts
 * toward the thread's tool_calls; past the limit it is refused before it runs.
 */
const CHAN_TOOL = `export const __version__ = "1.0.0";
export const __tool_type__ = "javascript";
export const __executor_id__ = "rye/core/runtimes/node_runtime";
export const __category__ = "t";
export const __tool_description__ = "loads the notes twice over fd 3";
export const __permissions__ = { rye: ["rye.load.knowledge.notes/*"] };
import { respond, rye } from '@rye/runtime';
const input = { item_type: 'knowledge', item_id: 'notes/style' };
const answers = [await rye.load(input), await rye.load(input)];
respond({ statuses: answers.map((a) => a.status), codes: answers.map((a) => a.error?.code ?? null) });
`;

let open: ThreadProject | undefined;
afterEach(async () => {
  await open?.server.close();
  open = undefined;
});

const CALL = {
  tool_calls: [{ name: 'rye_execute', input: { item_type: 'tool', item_id: 't/chan' } }],
  usage: { in: 100, out: 10 },
};
const RETURN = {
  tool_calls: [{ name: 'directive_return', input: { outcome: 'success', answer: 'done' } }],
  usage: { in: 100, out: 10 },
};

async function project(limits?: string): Promise<ThreadProject> {
  const p = (open = await threadProject(
    [{ match: { directive: 'summarise' }, turns: [CALL, RETURN] }],
    {
      tool: 't.chan',
      ...(limits === undefined ? {} : { limits }),
    },
  ));
  p.write('.ai/tools/t/chan.mjs', CHAN_TOOL);
  await p.sign('tool', 't/chan');
  return p;
}

interface ToolData {
  statuses: string[];
  codes: (string | null)[];
}

describe('nested calls on the operation channel under a thread', () => {
  it('each request is a sealed nested_call under its tool call, counted toward tool_calls', async () => {
    const p = await project();
    const res = await p.run([...EXECUTE, '--json']);
    expect(res.code, res.stderr).toBe(0);
    const doc = res.json<{ thread_id: string; status: string }>();
    const events = await verifiedEvents(p, doc.thread_id);
    const start = events.find((e) => e.type === 'tool_call_start');
    const nested = events.filter((e) => e.type === 'nested_call');
    expect(nested).toHaveLength(2);
    for (const e of nested)
      expect(e.payload).toEqual({
        call_id: start?.payload['call_id'],
        op: 'load',
        item_type: 'knowledge',
        item_id: 'notes/style',
      });
    const result = events.find((e) => e.type === 'tool_call_result')?.payload;
    expect(result?.['output']).toMatchObject({ statuses: ['success', 'success'] });
    const final = events.at(-2)?.payload ?? events.at(-1)?.payload;
    const cost = (final?.['cost'] ?? {}) as { tool_calls?: number };
    // t/chan, its two nested loads and directive_return.
    expect(cost.tool_calls).toBe(4);
  });

  it('past the tool_calls limit a nested request is refused before it runs, and recorded so', async () => {
    const p = await project('max_turns="6" max_spend="0.50" max_tool_calls="2"');
    const res = await p.run([...EXECUTE, '--json']);
    const doc = res.json<{ thread_id: string }>();
    const events = await verifiedEvents(p, doc.thread_id);
    const nested = events.filter((e) => e.type === 'nested_call');
    expect(nested[0]?.payload['refused']).toBeUndefined();
    expect(nested[1]?.payload['refused']).toMatch(/^THREAD_/);
    const data = events.find((e) => e.type === 'tool_call_result')?.payload['output'] as
      ToolData | undefined;
    expect(data?.statuses).toEqual(['success', 'error']);
    expect(data?.codes[1]).toBe(nested[1]?.payload['refused']);
  });
});
