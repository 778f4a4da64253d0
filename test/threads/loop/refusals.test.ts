import { existsSync } from 'node:fs';
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
  outputs?: Record<string, unknown>;
  error?: { code: string; details?: Record<string, unknown> };
  cost: { turns: number; tokens_in: number; tokens_out: number; spend_usd: string };
}

const RETURN = {
  tool_calls: [{ name: 'directive_return', input: { outcome: 'success', answer: 'done' } }],
  usage: { in: 100, out: 10 },
};
const EVIL = { name: 'rye_execute', input: { item_type: 'tool', item_id: 't/evil' } };

/** Spend in the result equals what the ledger committed, attempt by attempt. */
async function ledgerAgrees(p: ThreadProject, doc: Result): Promise<string[]> {
  const { snapshot, row } = await ledgerOf(p, doc.thread_id);
  const account = snapshot.accounts.find((a) => a.accountId === doc.thread_id);
  const spend = parseUsd(doc.cost.spend_usd, 'spend');
  expect(account?.committedNanos).toBe(spend);
  expect(account?.heldNanos).toBe(0);
  expect(row?.spendNanos).toBe(spend);
  return snapshot.attempts.map((a) => a.state);
}

describe('the thread runner refuses, and nothing runs or is charged beyond the ledger', () => {
  it('a prompt-injected call outside the capabilities is an error result; the tool never runs', async () => {
    const p = await project([
      {
        match: { directive: 'summarise' },
        turns: [{ tool_calls: [EVIL], usage: { in: 100, out: 10 } }, RETURN],
      },
    ]);
    const res = await p.run([...EXECUTE, '--json']);
    expect(res.code, res.stderr).toBe(0);
    const doc = res.json<Result>();
    expect(markerRan(p)).toBe(false);
    const events = await verifiedEvents(p, doc.thread_id);
    expect(events.find((e) => e.type === 'capability_denied')?.payload).toMatchObject({
      required: 'rye.execute.tool.t/evil',
    });
    expect(events.find((e) => e.type === 'tool_call_result')?.payload).toMatchObject({
      ok: false,
      error: { code: 'CAPABILITY_DENIED' },
    });
    // The model got it with the provider's native error flag.
    const body = JSON.stringify(p.server.requests[1]?.body);
    expect(body).toContain('"is_error":true');
    expect(body).toContain('CAPABILITY_DENIED');
    expect(await ledgerAgrees(p, doc)).toEqual(['settled', 'settled']);
  });

  it('five denials in a row end the thread THREAD_DENIED_REPEATEDLY (exit 3), nothing run', async () => {
    const p = await project([
      {
        match: { directive: 'summarise' },
        turns: [{ tool_calls: [EVIL, EVIL, EVIL, EVIL, EVIL], usage: { in: 100, out: 10 } }],
      },
    ]);
    const res = await p.run([...EXECUTE, '--json']);
    expect(res.code, res.stdout).toBe(3);
    const doc = res.json<Result>();
    expect(doc).toMatchObject({
      status: 'error',
      error: { code: 'THREAD_DENIED_REPEATEDLY', details: { thread_status: 'error' } },
    });
    expect(markerRan(p)).toBe(false);
    expect(p.server.requests.length).toBe(1);
    const events = await verifiedEvents(p, doc.thread_id);
    expect(events.filter((e) => e.type === 'capability_denied').length).toBe(5);
    expect(await ledgerAgrees(p, doc)).toEqual(['settled']);
  });

  it('the five-denial stop falls before dispatch: a granted call after the stopping denial never runs, recorded as not run', async () => {
    const ECHO = { name: 'rye_execute', input: { item_type: 'tool', item_id: 't/echo' } };
    const p = await project([
      {
        match: { directive: 'summarise' },
        turns: [{ tool_calls: [EVIL, EVIL, EVIL, EVIL, EVIL, ECHO], usage: { in: 100, out: 10 } }],
      },
    ]);
    const res = await p.run([...EXECUTE, '--json']);
    expect(res.code, res.stdout).toBe(3);
    expect(res.json<Result>().error?.code).toBe('THREAD_DENIED_REPEATEDLY');
    // t/echo is granted and writes the marker when it runs: it never ran.
    expect(markerRan(p)).toBe(false);
    const events = await verifiedEvents(p, res.json<Result>().thread_id);
    const starts = events.filter((e) => e.type === 'tool_call_start');
    expect(starts).toHaveLength(5);
    const results = events.filter((e) => e.type === 'tool_call_result');
    expect(results).toHaveLength(6);
    expect(results[5]?.payload).toMatchObject({
      ok: false,
      error: { code: 'THREAD_DENIED_REPEATEDLY', message: 'not run: the thread stopped' },
    });
  });

  it('a thread tool naming a thread outside the subtree counts toward the stop before dispatch, existing or not', async () => {
    const ECHO = { name: 'rye_execute', input: { item_type: 'tool', item_id: 't/echo' } };
    const STATUS = {
      name: 'rye_execute',
      input: {
        item_type: 'tool',
        item_id: 'rye/agent/threads/thread_status',
        parameters: { thread_id: 'summarise-01kdvdna000000000000000000' },
      },
    };
    const p = await project([
      {
        match: { directive: 'summarise' },
        turns: [
          { tool_calls: [EVIL, EVIL, EVIL, EVIL, STATUS, ECHO], usage: { in: 100, out: 10 } },
        ],
      },
    ]);
    const res = await p.run([...EXECUTE, '--json']);
    expect(res.code, res.stdout).toBe(3);
    expect(res.json<Result>().error?.code).toBe('THREAD_DENIED_REPEATEDLY');
    expect(markerRan(p)).toBe(false);
    const events = await verifiedEvents(p, res.json<Result>().thread_id);
    const results = events.filter((e) => e.type === 'tool_call_result');
    expect(results[4]?.payload).toMatchObject({ ok: false, error: { code: 'CAPABILITY_DENIED' } });
    expect(results[5]?.payload).toMatchObject({
      ok: false,
      error: { code: 'THREAD_DENIED_REPEATEDLY', message: 'not run: the thread stopped' },
    });
  });

  it('capability before resolution: an ungranted id is CAPABILITY_DENIED whether missing, unsigned or edited, with no path or hash, and each counts', async () => {
    const p = await project([
      {
        match: { directive: 'summarise' },
        turns: [
          {
            tool_calls: ['t/missing', 't/unsigned', 't/edited', 't/evil', 'u/nowhere'].map(
              (id) => ({ name: 'rye_execute', input: { item_type: 'tool', item_id: id } }),
            ),
            usage: { in: 100, out: 10 },
          },
        ],
      },
    ]);
    const tool = (name: string) =>
      `import json\n__version__ = "1.0.0"\n__tool_type__ = "python"\n__executor_id__ = "rye/core/runtimes/python_script_runtime"\n__category__ = "t"\n__tool_description__ = "${name}"\nprint(json.dumps({}))\n`;
    p.write('.ai/tools/t/unsigned.py', tool('unsigned'));
    p.write('.ai/tools/t/edited.py', tool('edited'));
    await p.sign('tool', 't/edited');
    p.write('.ai/tools/t/edited.py', `${tool('edited')}# edited\n`);
    const res = await p.run([...EXECUTE, '--json']);
    expect(res.code, res.stdout).toBe(3);
    expect(res.json<Result>().error?.code).toBe('THREAD_DENIED_REPEATEDLY');
    const events = await verifiedEvents(p, res.json<Result>().thread_id);
    const errors = events
      .filter((e) => e.type === 'tool_call_result')
      .map((e) => e.payload['error'] as { code: string; message: string });
    expect(errors.map((e) => e.code)).toEqual(Array(5).fill('CAPABILITY_DENIED'));
    for (const e of errors) {
      expect(e.message).not.toContain(p.project);
      expect(e.message).not.toMatch(/sha256|[0-9a-f]{64}|not found|signature/i);
    }
  });

  it('arguments smuggling capabilities, limits or parent are refused by the strict schema; nothing runs', async () => {
    const smuggled = [
      {
        item_type: 'tool',
        item_id: 't/echo',
        parameters: {},
        capabilities: ['rye.execute.tool.*'],
      },
      { item_type: 'tool', item_id: 't/echo', limits: { turns: 0 } },
      { item_type: 'tool', item_id: 't/echo', parent: 'x-01jf0000000000000000000000' },
    ].map((input) => ({ name: 'rye_execute', input }));
    const p = await project([
      {
        match: { directive: 'summarise' },
        turns: [{ tool_calls: smuggled, usage: { in: 100, out: 10 } }, RETURN],
      },
    ]);
    const res = await p.run([...EXECUTE, '--json']);
    expect(res.code, res.stderr).toBe(0);
    const doc = res.json<Result>();
    expect(markerRan(p)).toBe(false);
    const results = (await verifiedEvents(p, doc.thread_id)).filter(
      (e) => e.type === 'tool_call_result',
    );
    expect(results.slice(0, 3).map((e) => (e.payload['error'] as { code: string }).code)).toEqual([
      'OPERATION_INPUT_INVALID',
      'OPERATION_INPUT_INVALID',
      'OPERATION_INPUT_INVALID',
    ]);
  });

  it('stops at the turn limit with THREAD_LIMIT_EXCEEDED{limit, current, max} and sends no further request', async () => {
    const load = { name: 'rye_load', input: { item_type: 'knowledge', item_id: 'notes/style' } };
    const turn = { tool_calls: [load], usage: { in: 100, out: 10 } };
    const p = await project([
      { match: { directive: 'summarise' }, turns: [turn, turn, turn, RETURN] },
    ]);
    const res = await p.run([...EXECUTE, '--limit', 'turns=2', '--json']);
    expect(res.code).toBe(1);
    const doc = res.json<Result>();
    expect(doc).toMatchObject({
      status: 'error',
      error: { code: 'THREAD_LIMIT_EXCEEDED', details: { limit: 'turns', current: 2, max: 2 } },
      cost: { turns: 2 },
    });
    expect(p.server.requests.length).toBe(2);
    const events = await verifiedEvents(p, doc.thread_id);
    expect(events.find((e) => e.type === 'limit_hit')?.payload).toEqual({
      limit: 'turns',
      current: 2,
      max: 2,
    });
    expect(await ledgerAgrees(p, doc)).toEqual(['settled', 'settled']);
  });

  it('a missing API key is PROVIDER_AUTH_MISSING naming the variable, before anything is written', async () => {
    const p = await project([{ turns: [RETURN] }]);
    const res = await p.run([...EXECUTE, '--json'], { ANTHROPIC_API_KEY: '' });
    const doc = res.json<{ error: { code: string; message: string } }>();
    expect(doc.error.code).toBe('PROVIDER_AUTH_MISSING');
    expect(doc.error.message).toContain('ANTHROPIC_API_KEY');
    expect(p.server.requests.length).toBe(0);
    expect(existsSync(join(p.project, '.ai', 'threads'))).toBe(false);
  });

  it('a provider omitting usage is charged the full reservation (charged_max)', async () => {
    const p = await project([
      { match: { directive: 'summarise' }, turns: [{ ...RETURN, usage: 'missing' as const }] },
    ]);
    const res = await p.run([...EXECUTE, '--json']);
    expect(res.code, res.stderr).toBe(0);
    const doc = res.json<Result>();
    const { snapshot } = await ledgerOf(p, doc.thread_id);
    expect(snapshot.attempts[0]).toMatchObject({ state: 'charged_max', basis: 'reserved_max' });
    expect(parseUsd(doc.cost.spend_usd, 'spend')).toBe(snapshot.attempts[0]?.reservedNanos);
    expect(await ledgerAgrees(p, doc)).toEqual(['charged_max']);
  });

  it('a provider reporting more usage than reserved stops the thread (BUDGET_BOUND_VIOLATED); its calls never run', async () => {
    const echo = { name: 'rye_execute', input: { item_type: 'tool', item_id: 't/echo' } };
    const p = await project([
      {
        match: { directive: 'summarise' },
        turns: [{ tool_calls: [echo], usage: { in: 5_000_000, out: 10 } }, RETURN],
      },
    ]);
    const res = await p.run([...EXECUTE, '--json']);
    expect(res.code).toBe(1);
    const doc = res.json<Result>();
    expect(doc).toMatchObject({ status: 'error', error: { code: 'BUDGET_BOUND_VIOLATED' } });
    expect(markerRan(p)).toBe(false);
    expect(p.server.requests.length).toBe(1);
    expect(await ledgerAgrees(p, doc)).toEqual(['bound_violated']);
  });

  it('provider 500s until the retry bound end the thread PROVIDER_REQUEST_FAILED after 3 attempts', async () => {
    const fault = { fault: 'server_error' as const };
    const p = await project([
      { match: { directive: 'summarise' }, turns: [fault, fault, fault, RETURN] },
    ]);
    // The default small limit (0.50): a refused request is not charged, so the
    // retries still fit the budget and the retry bound is what ends the thread.
    const res = await p.run([...EXECUTE, '--json']);
    expect(res.code).toBe(1);
    const doc = res.json<Result>();
    expect(doc).toMatchObject({
      status: 'error',
      error: { code: 'PROVIDER_REQUEST_FAILED' },
      cost: { turns: 0, spend_usd: '0.00' },
    });
    expect(p.server.requests.length).toBe(3);
    // Each answer was a 500 before any output: released uncharged, and the result says so.
    expect(await ledgerAgrees(p, doc)).toEqual(['released', 'released', 'released']);
  }, 30_000);
});
