import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseUsd } from '../../../src/threads/budget/index.js';
import {
  EXECUTE,
  ledgerOf,
  markerRan,
  threadProject,
  verifiedEvents,
  type ThreadProject,
} from './fixtures.js';

let open: ThreadProject | undefined;
afterEach(async () => {
  await open?.server.close();
  open = undefined;
});

async function project(...args: Parameters<typeof threadProject>): Promise<ThreadProject> {
  open = await threadProject(...args);
  return open;
}

/** What --json prints: the operation result shape MCP answers too. */
interface Result {
  status: string;
  thread_id: string;
  data?: Record<string, unknown>;
  summary?: string;
  error?: { code: string; details?: Record<string, unknown> };
  cost: { turns: number; tokens_in: number; tokens_out: number; spend_usd: string };
}

describe('rye execute directive: a thread end to end (scripted provider on loopback)', () => {
  it('loads a knowledge entry, runs a signed tool, returns outputs; the transcript verifies and the ledger agrees', async () => {
    const p = await project([
      {
        match: { directive: 'summarise' },
        turns: [
          {
            text: 'Reading the notes.',
            tool_calls: [
              { name: 'rye_load', input: { item_type: 'knowledge', item_id: 'notes/style' } },
            ],
            usage: { in: 1200, out: 40 },
          },
          {
            tool_calls: [
              {
                name: 'rye_execute',
                input: { item_type: 'tool', item_id: 't/echo', parameters: { say: 'hi' } },
              },
            ],
            usage: { in: 1500, out: 30 },
          },
          {
            tool_calls: [
              { name: 'directive_return', input: { outcome: 'success', answer: 'short' } },
            ],
            usage: { in: 1800, out: 20 },
          },
        ],
      },
    ]);
    const res = await p.run([...EXECUTE, '--json']);
    expect(res.code, res.stderr).toBe(0);
    const doc = res.json<Result>();
    expect(doc).toMatchObject({
      status: 'success',
      item_id: 'demo/summarise',
      data: { outcome: 'success', answer: 'short' },
      summary: 'Summary of style: short',
      cost: { turns: 3, tokens_in: 4500, tokens_out: 90 },
    });
    expect(p.server.problems).toEqual([]);
    expect(markerRan(p)).toBe(true);
    // The model saw the knowledge body and the tool's output in the next requests.
    const second = JSON.stringify(p.server.requests[1]?.body);
    expect(second).toContain('Prefer short answers.');
    expect(JSON.stringify(p.server.requests[2]?.body)).toContain('\\"echo\\"');

    const events = await verifiedEvents(p, doc.thread_id);
    const types = events.map((e) => e.type);
    expect(types.slice(0, 3)).toEqual(['thread_created', 'system_prompt', 'cognition_in']);
    expect(types.at(-2)).toBe('thread_completed');
    expect(types.at(-1)).toBe('checkpoint');
    expect(types.filter((t) => t === 'checkpoint').length).toBe(4);

    // Cost: sonnet at $3 / $15 per Mtok, settled from usage.
    const expected = 4500 * 3000 + 90 * 15000;
    expect(parseUsd(doc.cost.spend_usd, 'spend')).toBe(expected);
    const { snapshot, row } = await ledgerOf(p, doc.thread_id);
    const committed = snapshot.accounts.find((a) => a.accountId === doc.thread_id)?.committedNanos;
    expect(committed).toBe(expected);
    expect(snapshot.attempts.map((a) => a.state)).toEqual(['settled', 'settled', 'settled']);
    expect(row).toMatchObject({ status: 'completed', spendNanos: expected, turns: 3 });
  });

  it('prints progress on stderr in human mode', async () => {
    const p = await project([
      {
        match: { directive: 'summarise' },
        turns: [
          {
            tool_calls: [{ name: 'directive_return', input: { outcome: 'success', answer: 'x' } }],
            usage: { in: 10, out: 5 },
          },
        ],
      },
    ]);
    const res = await p.run(EXECUTE);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toContain('turn 1: tool_use');
    expect(res.stderr).toContain('directive_return');
    expect(res.stdout).toContain('completed');
  });
});

describe('rye thread list|show|verify', () => {
  it('lists the thread, shows its verified record, verifies it, and refuses an edited transcript naming the seq', async () => {
    const p = await project([
      {
        match: { directive: 'summarise' },
        turns: [
          {
            tool_calls: [
              { name: 'rye_load', input: { item_type: 'knowledge', item_id: 'notes/style' } },
            ],
            usage: { in: 100, out: 10 },
          },
          {
            tool_calls: [{ name: 'directive_return', input: { outcome: 'success', answer: 'ok' } }],
            usage: { in: 100, out: 10 },
          },
        ],
      },
    ]);
    const doc = (await p.run([...EXECUTE, '--json'])).json<Result>();
    const list = await p.run(['thread', 'list', '--json']);
    expect(list.code, list.stderr).toBe(0);
    expect(list.json<{ threads: unknown[] }>().threads).toMatchObject([
      { thread_id: doc.thread_id, status: 'completed', directive_id: 'demo/summarise', turns: 2 },
    ]);
    const show = await p.run(['thread', 'show', doc.thread_id, '--json']);
    expect(show.code, show.stderr).toBe(0);
    expect(show.json<{ record: unknown }>().record).toMatchObject({
      thread_id: doc.thread_id,
      status: 'completed',
      outputs: { outcome: 'success', answer: 'ok' },
      cost: { turns: 2, tokens_in: 200, tokens_out: 20 },
    });
    const verify = await p.run(['thread', 'verify', doc.thread_id]);
    expect(verify.code, verify.stderr).toBe(0);
    expect(verify.stdout).toContain('ok (completed;');

    // An edit in the middle is refused at the edited line (seq 2).
    const path = join(p.project, '.ai', 'threads', doc.thread_id, 'transcript.jsonl');
    const lines = readFileSync(path, 'utf8').split('\n');
    lines[2] = (lines[2] ?? '').replace('"cognition_in"', '"cognition_in" ');
    writeFileSync(path, lines.join('\n'));
    const tampered = await p.run(['thread', 'verify', doc.thread_id, '--json']);
    expect(tampered.code).toBe(3);
    expect(
      tampered.json<{ error: { code: string; details: { seq: number } } }>().error,
    ).toMatchObject({
      code: 'TRANSCRIPT_TAMPERED',
      details: { seq: 2 },
    });

    // An edited thread.json is refused.
    const record = join(p.project, '.ai', 'threads', doc.thread_id, 'thread.json');
    writeFileSync(record, readFileSync(record, 'utf8').replace('"completed"', '"running"'));
    const edited = await p.run(['thread', 'show', doc.thread_id, '--json']);
    expect(edited.code).toBe(3);
    expect(edited.json<{ error: { code: string } }>().error.code).toBe('THREAD_RECORD_INVALID');

    const traversal = await p.run(['thread', 'show', '../x-01jf0000000000000000000000', '--json']);
    expect(traversal.json<{ error: { code: string } }>().error.code).toBe('THREAD_ID_INVALID');
  });
});
