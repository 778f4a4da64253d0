import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { RegistryDb, registryDbPath } from '../../src/threads/store/index.js';
import { rye } from '../helpers/cli.js';
import type { ScriptEntry } from '../support/scripted-provider/index.js';
import {
  EXECUTE,
  markerRan,
  threadProject,
  verifiedEvents,
  type ThreadProject,
} from '../threads/loop/fixtures.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { connect, directiveWith, startHttp, until } from './support.js';

let open: ThreadProject | undefined;
afterEach(async () => {
  await open?.server.close();
  open = undefined;
});

async function project(script: readonly ScriptEntry[]): Promise<ThreadProject> {
  open = await threadProject(script);
  return open;
}

const ECHO = { name: 'rye_execute', input: { item_type: 'tool', item_id: 't/echo' } };
const RETURN = {
  name: 'directive_return',
  input: { outcome: 'success', answer: 'short' },
};
const SCRIPT: ScriptEntry[] = [
  {
    match: { directive: 'summarise' },
    turns: [
      { tool_calls: [ECHO], usage: { in: 1000, out: 20 } },
      { tool_calls: [RETURN], usage: { in: 1200, out: 20 } },
    ],
  },
];

/** A ceiling that may run the directive and load its notes, but not run t/echo. */
async function withNoEchoCeiling(p: ThreadProject): Promise<void> {
  p.write(
    '.ai/directives/ceilings/no_echo.md',
    directiveWith(
      'no_echo',
      'ceilings',
      `      <execute><directive>demo.summarise</directive></execute>
      <load><knowledge>notes.*</knowledge></load>`,
    ),
  );
  await p.sign('directive', 'ceilings/no_echo');
}

function statusOf(p: ThreadProject, threadId: string): string | undefined {
  const db = RegistryDb.open(registryDbPath(p.project));
  try {
    return db.get(threadId)?.status;
  } finally {
    db.close();
  }
}

const RUN = { item_type: 'directive', item_id: 'demo/summarise', inputs: { topic: 'style' } };

describe('MCP execute on a directive runs a thread', () => {
  it('thread "wait" runs it and answers what `rye execute directive --json` prints, streaming progress', async () => {
    const p = await project(SCRIPT);
    const c = await connect(p);
    const progress: string[] = [];
    const result = (await c.client.callTool({ name: 'execute', arguments: RUN }, undefined, {
      onprogress: (n) => progress.push(n.message ?? ''),
    })) as CallToolResult;
    const doc = result.structuredContent as Record<string, unknown>;
    expect(result.isError).toBeFalsy();
    expect(doc).toMatchObject({
      status: 'success',
      item_id: 'demo/summarise',
      data: { outcome: 'success', answer: 'short' },
      summary: 'Summary of style: short',
      cost: { turns: 2, tokens_in: 2200, tokens_out: 40 },
    });
    expect(markerRan(p)).toBe(true);
    // Coalesced: how many notifications arrive is the scheduler's business; the thread's lines do.
    expect(progress.some((line) => line.includes('rye_execute tool t/echo'))).toBe(true);
    const threadId = doc['thread_id'] as string;
    expect(statusOf(p, threadId)).toBe('completed');

    // Its status and transcript through the same execute tool.
    const status = (await c.client.callTool({
      name: 'execute',
      arguments: {
        item_type: 'tool',
        item_id: 'rye/agent/threads/thread_status',
        parameters: { thread_id: threadId },
      },
    })) as CallToolResult;
    expect(status.structuredContent).toMatchObject({
      status: 'success',
      data: { thread_id: threadId, status: 'completed' },
    });
    const transcript = (await c.client.callTool({
      name: 'execute',
      arguments: {
        item_type: 'tool',
        item_id: 'rye/agent/threads/read_transcript',
        parameters: { thread_id: threadId, from_seq: 0, limit: 2 },
      },
    })) as CallToolResult;
    expect(transcript.structuredContent).toMatchObject({
      data: { events: [{ seq: 0, type: 'thread_created' }, { seq: 1 }], next_seq: 2 },
    });

    // The CLI prints the same document, with the CLI contract's `ok` (another conversation: a new topic).
    const cli = await p.run([...EXECUTE.slice(0, -1), '{"topic":"cli"}', '--json']);
    expect(cli.code, cli.stderr).toBe(0);
    const printed = cli.json<Record<string, unknown>>();
    expect(Object.keys(printed).sort()).toEqual([...Object.keys(doc), 'ok'].sort());
    expect(printed['ok']).toBe(true);
    expect(printed).toMatchObject({ status: 'success', data: { answer: 'short' } });
  });

  it('a thread started over MCP gets its declared set ∩ the ceiling: the call outside is denied, nothing runs', async () => {
    const p = await project(SCRIPT);
    await withNoEchoCeiling(p);
    const c = await connect(p, ['--ceiling', 'ceilings/no_echo']);
    const result = (await c.client.callTool({
      name: 'execute',
      arguments: RUN,
    })) as CallToolResult;
    const doc = result.structuredContent as Record<string, unknown>;
    expect(doc['status']).toBe('success');
    expect(markerRan(p)).toBe(false);
    const events = await verifiedEvents(p, doc['thread_id'] as string);
    expect(events.find((e) => e.type === 'capability_denied')?.payload).toMatchObject({
      required: 'rye.execute.tool.t/echo',
    });
  });

  it('a client cancel cancels the thread (status cancelled, sealed)', async () => {
    const p = await project([
      { match: { directive: 'summarise' }, turns: [{ fault: 'stall', after_events: 1 }] },
    ]);
    const c = await connect(p);
    const controller = new AbortController();
    const call = c.client.callTool({ name: 'execute', arguments: RUN }, undefined, {
      signal: controller.signal,
    });
    await until(() => p.server.requests.length === 1, 20_000, 'the provider request');
    controller.abort('enough');
    await expect(call).rejects.toThrow();
    const threads = await until(
      () => readThreads(p).some((t) => t.status === 'cancelled'),
      20_000,
      'the thread to end cancelled',
    ).then(() => readThreads(p));
    const id = threads[0]?.threadId as string;
    const events = await verifiedEvents(p, id);
    expect(events.some((e) => e.type === 'thread_cancelled')).toBe(true);
  });

  it('the server stopping (stdin EOF) cancels a running thread, which ends sealed as cancelled', async () => {
    const p = await project([
      { match: { directive: 'summarise' }, turns: [{ fault: 'stall', after_events: 1 }] },
    ]);
    const c = await connect(p);
    void c.client.callTool({ name: 'execute', arguments: RUN }).catch(() => undefined);
    await until(() => p.server.requests.length === 1, 20_000, 'the provider request');
    await c.client.close();
    expect(c.stderr()).toContain('stopping: stdin closed');
    const [row] = readThreads(p);
    expect(row?.status).toBe('cancelled');
    const events = await verifiedEvents(p, row?.threadId as string);
    expect(events.some((e) => e.type === 'thread_cancelled')).toBe(true);
  });

  it('the HTTP server stopping (SIGTERM) cancels a running thread and waits for it to end sealed as cancelled', async () => {
    const p = await project([
      { match: { directive: 'summarise' }, turns: [{ fault: 'stall', after_events: 1 }] },
    ]);
    const token = `rye_test_${'h'.repeat(40)}`;
    const server = await startHttp(p, { RYE_MCP_HTTP_TOKEN: token });
    const client = new Client({ name: 'http-stop-test', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(server.url, {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    void client.callTool({ name: 'execute', arguments: RUN }).catch(() => undefined);
    await until(() => p.server.requests.length === 1, 20_000, 'the provider request');
    const exited = new Promise((resolve) => server.child.once('exit', resolve));
    server.child.kill('SIGTERM');
    expect(await exited).toBe(0);
    await client.close().catch(() => undefined);
    expect(server.stderr()).toContain('stopping: SIGTERM');
    // Sealed before the process exited: nothing is left for a later reader to repair.
    const [row] = readThreads(p);
    expect(row?.status).toBe('cancelled');
    const events = await verifiedEvents(p, row?.threadId as string);
    expect(events.filter((e) => e.type !== 'checkpoint').at(-1)?.type).toBe('thread_cancelled');
    expect(events.at(-1)?.type).toBe('checkpoint');
  });

  it('the refusals come back as error results with the project’s codes, before any thread exists', async () => {
    const p = await project(SCRIPT);
    const c = await connect(p, [], { ANTHROPIC_API_KEY: '' });
    const result = (await c.client.callTool({
      name: 'execute',
      arguments: RUN,
    })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({
      status: 'error',
      item_id: 'demo/summarise',
      error: { code: 'PROVIDER_AUTH_MISSING' },
    });
    expect(readThreads(p)).toEqual([]);
  });
});

describe('thread "spawn": a detached worker owns the thread', () => {
  it('answers with the thread id at once; the thread completes after the client is gone, under the ceiling', async () => {
    const p = await project(SCRIPT);
    await withNoEchoCeiling(p);
    const c = await connect(p, ['--ceiling', 'ceilings/no_echo']);
    const result = (await c.client.callTool({
      name: 'execute',
      arguments: { ...RUN, thread: 'spawn' },
    })) as CallToolResult;
    const doc = result.structuredContent as Record<string, unknown>;
    expect(doc).toMatchObject({ status: 'success', data: { status: 'running' } });
    const threadId = doc['thread_id'] as string;
    expect(threadId).toMatch(/^summarise-/);
    await c.client.close();
    await until(() => statusOf(p, threadId) === 'completed', 30_000, 'the detached thread');
    // The worker held the ceiling: the model's t/echo call was denied and never ran.
    expect(markerRan(p)).toBe(false);
    const events = await verifiedEvents(p, threadId);
    expect(events.find((e) => e.type === 'capability_denied')?.payload).toMatchObject({
      required: 'rye.execute.tool.t/echo',
    });
  });

  it('rye execute directive --spawn prints the id and leaves the worker running; a refusal before admission is reported', async () => {
    const p = await project(SCRIPT);
    const res = await p.run([...EXECUTE, '--spawn', '--json']);
    expect(res.code, res.stderr).toBe(0);
    const threadId = res.json<{ thread_id: string }>().thread_id;
    await until(() => statusOf(p, threadId) === 'completed', 30_000, 'the detached thread');
    expect(markerRan(p)).toBe(true);

    const refused = await p.run([...EXECUTE, '--spawn', '--json'], { ANTHROPIC_API_KEY: '' });
    expect(refused.code).toBe(1);
    expect(refused.json<{ error: { code: string } }>().error.code).toBe('PROVIDER_AUTH_MISSING');
  });
});

describe('a tree started over MCP under a ceiling token', () => {
  it('is recorded as the token holder’s (its jti), as one started by the CLI under it', async () => {
    const p = await project(SCRIPT);
    const file = join(p.root, 'ceiling.token');
    const minted = await p.run([
      'cap',
      'mint',
      '--caps',
      'rye.execute.directive.demo/summarise,rye.load.knowledge.notes/*',
      '--ttl',
      '1h',
      '--out',
      file,
      '--json',
    ]);
    expect(minted.code, minted.stderr).toBe(0);
    const jti = minted.json<{ jti: string }>().jti;
    const c = await connect(p, ['--ceiling', file]);
    const result = (await c.client.callTool({ name: 'execute', arguments: RUN })) as CallToolResult;
    const doc = result.structuredContent as Record<string, unknown>;
    expect(doc['status'], JSON.stringify(doc)).toBe('success');
    const db = RegistryDb.open(registryDbPath(p.project));
    try {
      expect(db.lineageOf(doc['thread_id'] as string)?.ceilingJti).toBe(jti);
    } finally {
      db.close();
    }
  });
});

describe('attack: a worker started by hand with a widening job', () => {
  it('stays held to its RYE_CAP_TOKEN: the model’s call outside it is denied and never runs', async () => {
    const p = await project(SCRIPT);
    const file = join(p.root, 'narrow.token');
    const minted = await p.run([
      'cap',
      'mint',
      '--caps',
      'rye.execute.directive.demo/summarise,rye.load.knowledge.notes/*',
      '--ttl',
      '1h',
      '--out',
      file,
    ]);
    expect(minted.code, minted.stderr).toBe(0);
    const job = {
      v: 1,
      inputs: { topic: 'style' },
      limits: [],
      caps: ['rye.execute.tool.*', 'rye.execute.directive.*', 'rye.load.knowledge.*'],
    };
    const res = await rye(
      ['execute', 'directive', 'demo/summarise', '--detached-worker', '--project', p.project],
      {
        env: { ...p.env, RYE_CAP_TOKEN: readFileSync(file, 'utf8').trim() },
        stdin: JSON.stringify(job),
      },
    );
    expect(res.code, res.stderr).toBe(0);
    expect(markerRan(p)).toBe(false);
    const [row] = readThreads(p);
    const events = await verifiedEvents(p, row?.threadId as string);
    expect(events.find((e) => e.type === 'capability_denied')?.payload).toMatchObject({
      required: 'rye.execute.tool.t/echo',
    });
  });
});

function readThreads(p: ThreadProject): { threadId: string; status: string }[] {
  if (!existsSync(registryDbPath(p.project))) return [];
  const db = RegistryDb.open(registryDbPath(p.project));
  try {
    return db.list({});
  } finally {
    db.close();
  }
}
