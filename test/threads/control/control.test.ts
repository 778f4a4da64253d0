import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { loadTrustStore, readSigner } from '../../../src/integrity/index.js';
import { keyDir, trustStores } from '../../../src/items/index.js';
import {
  RegistryDb,
  readThreadRecord,
  registryDbPath,
  threadPaths,
  writeThreadRecord,
} from '../../../src/threads/store/index.js';
import { RYE_BIN } from '../../helpers/cli.js';
import {
  EXECUTE,
  ledgerOf,
  threadProject,
  verifiedEvents,
  type ThreadProject,
  UNLIMITED_SPEND,
} from '../loop/fixtures.js';

let open: ThreadProject | undefined;
const children: ChildProcess[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  await open?.server.close();
  open = undefined;
});

const RETURN = {
  tool_calls: [{ name: 'directive_return', input: { outcome: 'success', answer: 'done' } }],
  usage: { in: 100, out: 10 },
};
const SLOW = {
  tool_calls: [{ name: 'rye_execute', input: { item_type: 'tool', item_id: 't/slow' } }],
  usage: { in: 100, out: 10 },
};

interface Outcome {
  thread_id: string;
  status: string;
  action?: string;
  summary?: string;
  outputs?: Record<string, unknown>;
  error?: { code: string; message: string };
}

/** `rye execute directive` in the background; `done` resolves with its exit code and stdout. */
function startExecute(p: ThreadProject, topic: string, extra: string[] = []) {
  const args = [...EXECUTE.slice(0, 3), '--inputs', JSON.stringify({ topic }), ...extra];
  const child = spawn(process.execPath, [RYE_BIN, ...args, '--json', '--project', p.project], {
    env: p.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  const done = new Promise<{ code: number | null; signal: string | null; stdout: string }>((r) =>
    child.on('close', (code, signal) => r({ code, signal, stdout })),
  );
  return { child, done };
}

async function until(check: () => boolean | Promise<boolean>, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await delay(25);
  }
}

async function threads(p: ThreadProject): Promise<{ thread_id: string; status: string }[]> {
  return (await p.run(['thread', 'list', '--json'])).json<{
    threads: { thread_id: string; status: string }[];
  }>().threads;
}

/** Until t/slow runs (it marks only after 30 s of sleep, i.e. only if nothing killed it). */
async function toolStarted(p: ThreadProject): Promise<void> {
  await until(() => existsSync(`${p.marker}.started`));
}

describe('rye thread cancel', () => {
  it('reaches the owning process: the request in flight and the running tool stop, the thread ends cancelled and sealed', async () => {
    const p = (open = await threadProject(
      [{ match: { directive: 'summarise' }, turns: [SLOW, RETURN] }],
      { tool: 't.slow' },
    ));
    const run = startExecute(p, 'a');
    await toolStarted(p);
    const [row] = await threads(p);
    expect(row?.status).toBe('running');
    const id = row?.thread_id ?? '';
    const cancel = await p.run(['thread', 'cancel', id, '--reason', 'stop now', '--json']);
    expect(cancel.code, cancel.stdout + cancel.stderr).toBe(0);
    expect(cancel.json<Outcome>()).toMatchObject({
      thread_id: id,
      status: 'cancelled',
      action: 'cancelled',
      error: { code: 'THREAD_CANCELLED' },
    });
    const ended = await run.done;
    expect(ended.code).toBe(1);
    expect(JSON.parse(ended.stdout)).toMatchObject({
      status: 'error',
      thread_id: id,
      error: { code: 'THREAD_CANCELLED', details: { thread_status: 'cancelled' } },
    });
    const events = await verifiedEvents(p, id);
    const last = events.filter((e) => e.type !== 'checkpoint').at(-1);
    expect(last?.type).toBe('thread_cancelled');
    expect(JSON.stringify(last?.payload)).toContain('stop now');
    // The slow tool was running, and its result says it was cancelled.
    const result = events.find((e) => e.type === 'tool_call_result');
    expect(JSON.stringify(result?.payload)).toContain('CANCELLED');
    expect(existsSync(p.marker)).toBe(false); // the slow tool was killed, it never marked
    await delay(300);
    expect(existsSync(p.marker)).toBe(false);
  }, 40_000);

  it('seals a thread whose owner died (SIGKILL): cancelled, the open attempt charged from the ledger, verify passes', async () => {
    // One conversation: the stalled turn, then (resumed) the return.
    const p = (open = await threadProject(
      [{ match: { directive: 'summarise' }, turns: [{ fault: 'stall' }, RETURN] }],
      UNLIMITED_SPEND,
    ));
    const run = startExecute(p, 'a', []);
    await until(() => p.server.requests.length === 1);
    run.child.kill('SIGKILL');
    await run.done;
    const [row] = await threads(p);
    const id = row?.thread_id ?? '';
    expect(row?.status).toBe('interrupted');
    const cancel = await p.run(['thread', 'cancel', id, '--json']);
    expect(cancel.code, cancel.stdout + cancel.stderr).toBe(0);
    expect(cancel.json<Outcome>()).toMatchObject({ status: 'cancelled', action: 'sealed' });
    expect((await p.run(['thread', 'verify', id])).code).toBe(0);
    const { snapshot, row: indexed } = await ledgerOf(p, id);
    expect(snapshot.attempts.map((a) => a.state)).toEqual(['charged_max']);
    expect(indexed?.status).toBe('cancelled');
    expect(indexed?.spendNanos).toBe(snapshot.accounts[0]?.committedNanos);
    // A second cancel is a no-op answer, not an error.
    const again = await p.run(['thread', 'cancel', id, '--json']);
    expect(again.code).toBe(0);
    expect(again.json<Outcome>()).toMatchObject({
      status: 'cancelled',
      action: 'already_finished',
    });
    // A cancelled thread stays resumable, with the sealed cost carried over.
    const resumed = await p.run(['thread', 'resume', id, '--message', 'continue', '--json']);
    expect(resumed.code, resumed.stdout + resumed.stderr).toBe(0);
    expect(resumed.json<Outcome>()).toMatchObject({ status: 'completed', thread_id: id });
  }, 40_000);

  it('leaves a finished thread as it is (exit 0), and refuses a bad id or an unknown thread', async () => {
    const p = (open = await threadProject([
      { match: { directive: 'summarise' }, turns: [RETURN] },
    ]));
    const id = (await p.run([...EXECUTE, '--json'])).json<Outcome>().thread_id;
    const cancel = await p.run(['thread', 'cancel', id]);
    expect(cancel.code).toBe(0);
    expect(cancel.stdout).toContain('completed (it had already ended; nothing to do)');
    const events = await verifiedEvents(p, id);
    expect(events.some((e) => e.type === 'thread_cancelled')).toBe(false);
    const bad = await p.run(['thread', 'cancel', '../etc-01jf0000000000000000000000', '--json']);
    expect(bad.code).toBe(2);
    const unknown = await p.run(['thread', 'cancel', 'summarise-01jf0000000000000000000000']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('THREAD_NOT_FOUND');
  }, 30_000);
});

describe('rye thread cancel, owner died after sealing its end', () => {
  it('takes the sealed end into the record instead of cancelling', async () => {
    const p = (open = await threadProject([
      { match: { directive: 'summarise' }, turns: [RETURN] },
    ]));
    const id = (await p.run([...EXECUTE, '--json'])).json<Outcome>().thread_id;
    // As if the owner died after the terminal checkpoint and before the record.
    const paths = threadPaths(p.project, id);
    const { trust } = await loadTrustStore(trustStores(p.spaces));
    const record = await readThreadRecord(paths, trust);
    const { outputs: _o, ...unfinished } = record;
    await writeThreadRecord(
      paths,
      { ...unfinished, status: 'running' },
      await readSigner(keyDir(p.spaces)),
    );
    const db = RegistryDb.open(registryDbPath(p.project));
    db.setStatus(id, 'running');
    db.close();
    const cancel = await p.run(['thread', 'cancel', id, '--json']);
    expect(cancel.code, cancel.stdout + cancel.stderr).toBe(0);
    expect(cancel.json<Outcome>()).toMatchObject({
      status: 'completed',
      action: 'already_finished',
      outputs: { answer: 'done' },
    });
    const events = await verifiedEvents(p, id);
    expect(events.some((e) => e.type === 'thread_cancelled')).toBe(false);
  }, 30_000);
});

describe('SIGINT / SIGTERM to rye execute directive', () => {
  it('cancels the thread gracefully: the tool is killed, the result printed, the transcript sealed, exit 130', async () => {
    const p = (open = await threadProject(
      [{ match: { directive: 'summarise' }, turns: [SLOW, RETURN] }],
      { tool: 't.slow' },
    ));
    const run = startExecute(p, 'a');
    await toolStarted(p);
    run.child.kill('SIGINT');
    const ended = await run.done;
    expect(ended.code).toBe(130);
    const doc = JSON.parse(ended.stdout) as Outcome;
    expect(doc).toMatchObject({
      status: 'error',
      error: { code: 'THREAD_CANCELLED', details: { thread_status: 'cancelled' } },
    });
    expect(doc.error?.message).toContain('SIGINT');
    const events = await verifiedEvents(p, doc.thread_id);
    expect(events.filter((e) => e.type !== 'checkpoint').at(-1)?.type).toBe('thread_cancelled');
    expect((await threads(p))[0]?.status).toBe('cancelled');
    const result = events.find((e) => e.type === 'tool_call_result');
    expect(JSON.stringify(result?.payload)).toContain('CANCELLED');
    expect(existsSync(p.marker)).toBe(false);
  }, 40_000);
});

describe('rye thread wait', () => {
  it('returns finished threads with their outputs and lists the running ones as pending on a timeout, cancelling nothing', async () => {
    const p = (open = await threadProject([
      { match: { directive: 'summarise', first_user_includes: '"a"' }, turns: [RETURN] },
      {
        match: { directive: 'summarise', first_user_includes: '"b"' },
        turns: [{ fault: 'stall' }],
      },
    ]));
    const a = (await startExecute(p, 'a').done).stdout;
    const done = JSON.parse(a) as Outcome;
    startExecute(p, 'b');
    await until(async () => (await threads(p)).some((t) => t.status === 'running'));
    const running = (await threads(p)).find((t) => t.status === 'running')?.thread_id ?? '';
    const res = await p.run([
      'thread',
      'wait',
      done.thread_id,
      running,
      '--timeout',
      '0.3',
      '--json',
    ]);
    expect(res.code, res.stderr).toBe(1);
    const doc = res.json<{ ok: boolean; threads: Outcome[]; pending: string[] }>();
    expect(doc.ok).toBe(false);
    expect(doc.threads).toMatchObject([
      {
        thread_id: done.thread_id,
        status: 'completed',
        outputs: { answer: 'done' },
        summary: 'Summary of a: done',
      },
    ]);
    expect(doc.pending).toEqual([running]);
    expect((await threads(p)).find((t) => t.thread_id === running)?.status).toBe('running');
  }, 40_000);

  it('--fail-fast cancels the others when one fails, and still returns every finished outcome', async () => {
    const p = (open = await threadProject([
      { match: { directive: 'summarise', first_user_includes: '"a"' }, turns: [{ fault: 'auth' }] },
      {
        match: { directive: 'summarise', first_user_includes: '"b"' },
        turns: [{ fault: 'stall' }],
      },
    ]));
    const b = startExecute(p, 'b');
    await until(async () => (await threads(p)).length === 1);
    const running = (await threads(p))[0]?.thread_id ?? '';
    const failed = JSON.parse((await startExecute(p, 'a').done).stdout) as Outcome;
    expect(failed.status).toBe('error');
    const res = await p.run(['thread', 'wait', failed.thread_id, running, '--fail-fast', '--json']);
    expect(res.code, res.stderr).toBe(1);
    const doc = res.json<{ threads: Outcome[]; pending: string[] }>();
    expect(doc.pending).toEqual([]);
    expect(doc.threads.map((t) => [t.thread_id, t.status])).toEqual([
      [failed.thread_id, 'error'],
      [running, 'cancelled'],
    ]);
    expect(doc.threads[1]?.error?.message).toContain('sibling_failed');
    expect((await b.done).code).toBe(1);
  }, 40_000);

  it('exits 0 when every thread completed', async () => {
    const p = (open = await threadProject([
      { match: { directive: 'summarise' }, turns: [RETURN] },
    ]));
    const id = (await p.run([...EXECUTE, '--json'])).json<Outcome>().thread_id;
    const res = await p.run(['thread', 'wait', id]);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toContain(`thread ${id}: completed`);
  }, 30_000);
});

describe('rye thread tail', () => {
  it('prints the verified events, one line each, or JSONL; --follow ends with the terminal event', async () => {
    const p = (open = await threadProject([
      { match: { directive: 'summarise', first_user_includes: '"a"' }, turns: [RETURN] },
      {
        match: { directive: 'summarise', first_user_includes: '"b"' },
        turns: [{ fault: 'stall' }],
      },
    ]));
    const id = JSON.parse((await startExecute(p, 'a').done).stdout).thread_id as string;
    const human = await p.run(['thread', 'tail', id]);
    expect(human.code, human.stderr).toBe(0);
    const lines = human.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ {3}0 \d\d:\d\d:\d\d\.\d{3} thread_created +demo\/summarise/);
    expect(human.stdout).toContain('tool_call_start  directive_return');
    expect(lines.at(-2)).toContain('thread_completed');
    const jsonl = await p.run(['thread', 'tail', id, '--json']);
    const events = jsonl.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { seq: number; type: string });
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i));
    expect(events.at(-1)?.type).toBe('checkpoint');

    startExecute(p, 'b');
    await until(async () => (await threads(p)).some((t) => t.status === 'running'));
    const running = (await threads(p)).find((t) => t.status === 'running')?.thread_id ?? '';
    const follow = spawn(
      process.execPath,
      [RYE_BIN, 'thread', 'tail', running, '--follow', '--json', '--project', p.project],
      { env: p.env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    children.push(follow);
    let out = '';
    follow.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    const closed = new Promise<number | null>((r) => follow.on('close', r));
    await until(() => out.includes('"issue"'));
    expect((await p.run(['thread', 'cancel', running])).code).toBe(0);
    expect(await closed).toBe(0);
    const types = out
      .trimEnd()
      .split('\n')
      .map((l) => (JSON.parse(l) as { type: string }).type);
    expect(types.slice(-2)).toEqual(['thread_cancelled', 'checkpoint']);
  }, 40_000);

  it('refuses a transcript edited in the middle, naming the seq (exit 3)', async () => {
    const p = (open = await threadProject([
      { match: { directive: 'summarise' }, turns: [RETURN] },
    ]));
    const id = (await p.run([...EXECUTE, '--json'])).json<Outcome>().thread_id;
    const { readFileSync, writeFileSync } = await import('node:fs');
    const path = `${p.project}/.ai/threads/${id}/transcript.jsonl`;
    const text = readFileSync(path, 'utf8').split('\n');
    text[2] = (text[2] ?? '').replace('"cognition_in"', '"cognition_in" ');
    writeFileSync(path, text.join('\n'));
    const res = await p.run(['thread', 'tail', id, '--json']);
    expect(res.code).toBe(3);
    expect(res.stdout).toContain('TRANSCRIPT_TAMPERED');
  }, 30_000);
});
