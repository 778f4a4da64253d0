import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { RYE_BIN } from '../../helpers/cli.js';
import {
  EXECUTE,
  ledgerOf,
  threadProject,
  verifiedEvents,
  type ThreadProject,
  UNLIMITED_SPEND,
} from './fixtures.js';

let open: ThreadProject | undefined;
afterEach(async () => {
  await open?.server.close();
  open = undefined;
});

const RETURN = {
  tool_calls: [{ name: 'directive_return', input: { outcome: 'success', answer: 'done' } }],
  usage: { in: 100, out: 10 },
};

async function until(check: () => boolean, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('a thread killed mid-turn', () => {
  it('is interrupted at the next start, and resumes with the open attempt charged from the ledger', async () => {
    // The resumed request's first user message carries the new text (same-role
    // messages merge) after the inputs: the scripted server keys on the inputs,
    // so the resume continues the same conversation at its next turn.
    // Unlimited spend: the killed attempt is charged its whole reservation, which under
    // a small limit (the output cap takes what the limit leaves) would deny the next turn.
    const p = (open = await threadProject(
      [{ match: { directive: 'summarise' }, turns: [{ fault: 'stall' }, RETURN] }],
      UNLIMITED_SPEND,
    ));
    const args = [RYE_BIN, ...EXECUTE, '--json', '--project', p.project];
    const child = spawn(process.execPath, args, {
      env: p.env,
      stdio: 'ignore',
    });
    const exited = new Promise((r) => child.on('close', r));
    await until(() => p.server.requests.length === 1);
    child.kill('SIGKILL');
    await exited;

    const list = await p.run(['thread', 'list', '--json']);
    const [row] = list.json<{ threads: { thread_id: string; status: string }[] }>().threads;
    expect(row?.status).toBe('interrupted');
    const id = row?.thread_id ?? '';

    const res = await p.run(['thread', 'resume', id, '--message', 'continue', '--json']);
    expect(res.code, res.stdout + res.stderr).toBe(0);
    expect(res.json()).toMatchObject({ status: 'completed', thread_id: id, cost: { turns: 1 } });
    const { snapshot } = await ledgerOf(p, id);
    expect(snapshot.attempts.map((a) => a.state)).toEqual(['charged_max', 'settled']);
    const events = await verifiedEvents(p, id);
    expect(events.filter((e) => e.type === 'budget').map((e) => e.payload['op'])).toContain(
      'release',
    );
  }, 30_000);

  it('a deadline aborts the request in flight: THREAD_LIMIT_EXCEEDED{limit: duration_seconds}', async () => {
    const p = (open = await threadProject([
      { match: { directive: 'summarise' }, turns: [{ fault: 'stall' }, RETURN] },
    ]));
    const res = await p.run([...EXECUTE, '--limit', 'duration_seconds=1', '--json']);
    expect(res.code).toBe(1);
    expect(res.json()).toMatchObject({
      status: 'error',
      error: { code: 'THREAD_LIMIT_EXCEEDED', details: { limit: 'duration_seconds', max: 1 } },
    });
    expect(p.server.requests.length).toBe(1);
  }, 30_000);
});
