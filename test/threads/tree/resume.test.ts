import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { isRyeError } from '../../../src/errors/index.js';
import { threadPaths } from '../../../src/threads/store/index.js';
import { RYE_BIN, rye } from '../../helpers/cli.js';
import type { ScriptEntry } from '../../support/scripted-provider/index.js';
import { ledgerOf, verifiedEvents } from '../loop/fixtures.js';
import { directive, execDirective, returns, treeProject, type TreeProject } from './fixtures.js';

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
        <directive>demo.worker</directive>
      </execute>`,
});
const WORKER = directive({
  name: 'worker',
  limits: 'max_turns="4" max_spend="5.00"',
  permissions: `      <load>
        <knowledge>*</knowledge>
      </load>`,
});

/** A root that spawns one worker and waits for it, then returns 'first'; the worker's turns given. */
function oneChildTree(workerTurns: ScriptEntry['turns']): Promise<TreeProject> {
  return treeProject({ 'demo/orchestrate': ORCHESTRATOR, 'demo/worker': WORKER }, [
    {
      match: { directive: 'orchestrate' },
      turns: [
        {
          tool_calls: [execDirective('demo/worker', { part: 'a' }, 'wait')],
          usage: { in: 100, out: 10 },
        },
        returns('first'),
      ],
    },
    { match: { directive: 'worker' }, turns: workerTurns },
  ]);
}

describe('resume of an orchestrator whose children finished', () => {
  it('continues the same root under a rotated token and spawns again; cost is cumulative', async () => {
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
            returns('first'),
            {
              tool_calls: [execDirective('demo/worker', { part: 'b' }, 'wait')],
              usage: { in: 100, out: 10 },
            },
            returns('second'),
          ],
        },
        { match: { directive: 'worker' }, turns: [returns('w')] },
      ],
    ));
    const first = await p.run('demo/orchestrate', { goal: 'x' });
    expect(first.status).toBe('completed');
    const before = await p.record(first.thread_id);

    const again = await p.resume(first.thread_id, 'add auth');
    expect(p.server.problems).toEqual([]);
    expect(again).toMatchObject({
      status: 'completed',
      thread_id: first.thread_id,
      outputs: { answer: 'second' },
    });
    expect(again.cost.turns).toBe(4);
    const after = await p.record(first.thread_id);
    expect(after.token?.jti).not.toBe(before.token?.jti);
    expect(after.cost.spawns).toBe(2);
    const edges = p.registry((db) => db.edgesFrom(first.thread_id));
    expect(edges).toHaveLength(2);
    const statuses = p.registry((db) => db.list({ tree: first.thread_id }).map((r) => r.status));
    expect(statuses).toEqual(['completed', 'completed', 'completed']);
    // The old jti is nobody's current token any more.
    expect(p.registry((db) => db.byJti(before.token?.jti ?? ''))).toBeUndefined();
  }, 60_000);
});

describe("the ledger of an orchestrator against its tree's transcripts", () => {
  it("counts the children's signed spend: verify agrees, and a root account lowered in registry.db is raised to the whole tree's on resume", async () => {
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
            returns('first'),
            returns('second'),
          ],
        },
        { match: { directive: 'worker' }, turns: [returns('w')] },
      ],
    ));
    const first = await p.run('demo/orchestrate', { goal: 'x' });
    expect(first.status).toBe('completed');
    const root = first.thread_id;
    const before = (await ledgerOf(p, root)).snapshot.accounts;
    const committed = before.find((a) => a.accountId === root)?.committedNanos ?? 0;
    const child = before.find((a) => a.accountId !== root);
    // The root's account carries its child's spend, which only the child's transcript records.
    expect(child?.committedNanos).toBeGreaterThan(0);
    expect(committed).toBeGreaterThan(child?.committedNanos ?? 0);
    const verify = async () => {
      const res = await rye(['thread', 'verify', root, '--json', '--project', p.project], {
        env: p.env,
      });
      expect(res.code, res.stderr).toBe(0);
      return res.json<{ ledger: { mismatch: boolean; ledger_usd: string } }>().ledger;
    };
    expect(await verify()).toMatchObject({ mismatch: false });

    // Whoever can write registry.db lowers the root's account.
    p.registry((r) =>
      r.db.prepare('UPDATE account SET committed_nanos = 0 WHERE account_id = ?').run(root),
    );
    expect(await verify()).toMatchObject({ mismatch: true, ledger_usd: '0.00' });

    const again = await p.resume(root, 'once more');
    expect(again).toMatchObject({ status: 'completed', outputs: { answer: 'second' } });
    const raised = (await verifiedEvents(p, root)).filter(
      (e) => e.type === 'repair' && e.payload['kind'] === 'ledger_raised',
    );
    expect(raised.map((e) => e.payload)).toMatchObject([
      { account: root, ledger_nanos: 0, transcript_nanos: committed, committed_nanos: committed },
    ]);
    expect(await verify()).toMatchObject({ mismatch: false });
  }, 60_000);
});

describe('resume of a child thread alone', () => {
  it("re-plans it under its parent's set, then refuses a finished one (its account is closed) before writing anything", async () => {
    const p = (open = await oneChildTree([returns('did a'), returns('never sent')]));
    const root = await p.run('demo/orchestrate', { goal: 'g' });
    expect(root.status).toBe('completed');
    const child = p.registry((db) => db.edgesFrom(root.thread_id)[0]?.childId as string);
    // The parent held no knowledge grant: the child's recorded set is empty, and
    // re-planned under the operator alone it would look changed (THREAD_RESUME_PINNED).
    expect((await p.record(child)).caps).toEqual([]);
    const paths = threadPaths(p.project, child);
    const before = [readFileSync(paths.transcript), readFileSync(paths.record)];
    const requests = p.server.requests.length;

    const error = await p.resume(child, 'once more').catch((e: unknown) => e);
    expect(isRyeError(error, 'BUDGET_DENIED'), String(error)).toBe(true);
    expect((error as Error).message).toContain('resume the root');
    expect((error as { details: unknown }).details).toMatchObject({
      thread: child,
      reason: 'closed',
    });
    expect([readFileSync(paths.transcript), readFileSync(paths.record)]).toEqual(before);
    expect(p.server.requests.length).toBe(requests);
  });
});

/** Every thread's status as `rye thread list` shows it (a dead owner's `running` is `interrupted`). */
async function listed(p: TreeProject): Promise<Record<string, string>> {
  const res = await rye(['thread', 'list', '--json', '--project', p.project], { env: p.env });
  expect(res.code, res.stderr).toBe(0);
  const { threads } = res.json<{ threads: { thread_id: string; status: string }[] }>();
  return Object.fromEntries(threads.map((t) => [t.thread_id, t.status]));
}

describe('resume of a child of an interrupted tree', () => {
  it('continues the child alone on its open account, and leaves its parent interrupted', async () => {
    const p = (open = await oneChildTree([{ fault: 'stall' }, returns('did a')]));
    // The whole tree runs in one rye process, killed while the child's first request is in flight.
    const args = ['execute', 'directive', 'demo/orchestrate', '--inputs', '{"goal":"g"}'];
    const tree = spawn(process.execPath, [RYE_BIN, ...args, '--project', p.project], {
      env: p.env,
      stdio: 'ignore',
    });
    const exited = new Promise((resolve) => tree.on('close', resolve));
    await expect.poll(() => p.server.requests.length, { timeout: 15_000 }).toBe(2);
    tree.kill('SIGKILL');
    await exited;

    const rows = p.registry((db) => db.list());
    const root = rows.find((r) => r.parentId === null)?.threadId ?? '';
    const child = rows.find((r) => r.parentId === root)?.threadId ?? '';
    expect(await listed(p)).toEqual({ [root]: 'interrupted', [child]: 'interrupted' });

    const resumed = await p.resume(child, 'continue');
    expect(p.server.problems).toEqual([]);
    expect(resumed).toMatchObject({
      status: 'completed',
      thread_id: child,
      outputs: { answer: 'did a' },
    });
    // Re-admitted under its parent's recorded set (no grant), as at its spawn.
    expect((await p.record(child)).caps).toEqual([]);
    // The killed request was charged its reservation; the resumed one settled.
    const { snapshot } = await ledgerOf(p, root);
    const attempts = snapshot.attempts.filter((a) => a.threadId === child);
    expect(attempts.map((a) => a.state)).toEqual(['charged_max', 'settled']);
    expect(await listed(p)).toEqual({ [root]: 'interrupted', [child]: 'completed' });

    // The root, resumed after, takes its next turn and ends the tree.
    const ended = await p.resume(root, 'go on');
    expect(ended).toMatchObject({ status: 'completed', outputs: { answer: 'first' } });
    // Its call to the child, cut off by the kill, was answered THREAD_INTERRUPTED.
    const results = (await verifiedEvents(p, root)).filter((e) => e.type === 'tool_call_result');
    expect(results.map((e) => e.payload['ok'])).toEqual([false, true]);
    expect(results[0]?.payload['error']).toMatchObject({ code: 'THREAD_INTERRUPTED' });
    expect(await listed(p)).toEqual({ [root]: 'completed', [child]: 'completed' });
  }, 60_000);
});
