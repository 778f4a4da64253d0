import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  operatorAuthority,
  narrowAuthority,
  parseCapability,
} from '../../../src/capabilities/index.js';
import { runOperation, type OperationContext } from '../../../src/ops/index.js';
import { RegistryDb, registryDbPath } from '../../../src/threads/store/index.js';
import { EXECUTE, threadProject, type ThreadProject } from '../loop/fixtures.js';
import { THREADS_PORT } from '../../../src/threads/root/index.js';

let open: ThreadProject | undefined;
afterEach(async () => {
  await open?.server.close();
  open = undefined;
});

/** A project with one completed thread; returns its id. */
async function finishedThread(): Promise<{ p: ThreadProject; id: string }> {
  open = await threadProject([
    {
      match: { directive: 'summarise' },
      turns: [
        {
          tool_calls: [{ name: 'rye_execute', input: { item_type: 'tool', item_id: 't/echo' } }],
          usage: { in: 100, out: 10 },
        },
        {
          tool_calls: [{ name: 'directive_return', input: { outcome: 'success', answer: 'done' } }],
          usage: { in: 120, out: 10 },
        },
      ],
    },
  ]);
  const res = await open.run([...EXECUTE, '--json']);
  expect(res.code, res.stderr).toBe(0);
  return { p: open, id: res.json<{ thread_id: string }>().thread_id };
}

function ctxOf(p: ThreadProject, extra: Partial<OperationContext> = {}): OperationContext {
  return {
    spaces: p.spaces,
    env: p.env,
    authority: operatorAuthority(),
    threads: THREADS_PORT,
    ...extra,
  };
}

const tool = (name: string, parameters: Record<string, unknown>) => ({
  item_type: 'tool',
  item_id: `rye/agent/threads/${name}`,
  parameters,
});

describe('the thread tools (rye/agent/threads/*), in process through the ops door', () => {
  it('thread_status answers the verified record and the registry status; read_transcript pages verified events', async () => {
    const { p, id } = await finishedThread();
    const status = await runOperation(
      'execute',
      tool('thread_status', { thread_id: id }),
      ctxOf(p),
    );
    expect(status).toMatchObject({
      status: 'success',
      item_id: 'rye/agent/threads/thread_status',
      data: {
        thread_id: id,
        status: 'completed',
        // The record names its token (jti, expiry), never the token itself.
        record: { directive: { id: 'demo/summarise' }, token: { jti: expect.any(String) } },
      },
    });
    expect(JSON.stringify(status)).not.toContain('rye-cap-v1.');

    const first = await runOperation(
      'execute',
      tool('read_transcript', { thread_id: id, limit: 3 }),
      ctxOf(p),
    );
    const page = (first as { data: { events: { seq: number; type: string }[]; next_seq: number } })
      .data;
    expect(page.events.map((e) => e.seq)).toEqual([0, 1, 2]);
    expect(page.events[0]?.type).toBe('thread_created');
    expect(page.next_seq).toBe(3);
    const rest = await runOperation(
      'execute',
      tool('read_transcript', { thread_id: id, from_seq: page.next_seq, limit: 1000 }),
      ctxOf(p),
    );
    const tail = (rest as { data: { events: { type: string }[]; next_seq: null } }).data;
    expect(tail.next_seq).toBeNull();
    expect(tail.events.at(-1)?.type).toBe('checkpoint');
    expect(tail.events.some((e) => e.type === 'thread_completed')).toBe(true);
  });

  it('refuses outside the authority, other threads’ descendants, bad parameters, a traversal and a tampered transcript', async () => {
    const { p, id } = await finishedThread();
    const denied = await runOperation(
      'execute',
      tool('thread_status', { thread_id: id }),
      ctxOf(p, {
        authority: narrowAuthority(operatorAuthority(), [
          parseCapability('rye.execute.tool.t/echo'),
        ]),
      }),
    );
    expect(denied).toMatchObject({
      status: 'error',
      error: {
        code: 'CAPABILITY_DENIED',
        details: { required: 'rye.execute.tool.rye/agent/threads/thread_status' },
      },
    });
    const granted = narrowAuthority(operatorAuthority(), [
      parseCapability('rye.execute.tool.rye/agent/threads/*'),
    ]);
    expect(
      await runOperation(
        'execute',
        tool('thread_status', { thread_id: id }),
        ctxOf(p, { authority: granted }),
      ),
    ).toMatchObject({ status: 'success' });

    // A thread's model reaches only its own descendants: a root is nobody's.
    const db = RegistryDb.open(registryDbPath(p.project));
    const other = db.list({})[0]?.threadId as string;
    db.close();
    const foreign = await runOperation(
      'execute',
      tool('read_transcript', { thread_id: id }),
      ctxOf(p, { thread: other }),
    );
    expect(foreign).toMatchObject({ error: { code: 'CAPABILITY_DENIED' } });

    const smuggled = await runOperation(
      'execute',
      tool('read_transcript', { thread_id: id, limit: 0, caps: ['*'] }),
      ctxOf(p),
    );
    expect(smuggled).toMatchObject({ error: { code: 'OPERATION_INPUT_INVALID' } });
    const traversal = await runOperation(
      'execute',
      tool('thread_status', { thread_id: '../x-01jf0000000000000000000000' }),
      ctxOf(p),
    );
    expect(traversal).toMatchObject({ error: { code: 'THREAD_ID_INVALID' } });

    const path = join(p.project, '.ai', 'threads', id, 'transcript.jsonl');
    writeFileSync(path, readFileSync(path, 'utf8').replace('"topic"', '"t0pic"'));
    const tampered = await runOperation(
      'execute',
      tool('read_transcript', { thread_id: id }),
      ctxOf(p),
    );
    expect(tampered).toMatchObject({ error: { code: 'TRANSCRIPT_TAMPERED' } });
  });

  it('rye execute tool rye/agent/threads/thread_status answers the same document', async () => {
    const { p, id } = await finishedThread();
    const res = await p.run([
      'execute',
      'tool',
      'rye/agent/threads/thread_status',
      '--params',
      JSON.stringify({ thread_id: id }),
      '--json',
    ]);
    expect(res.code, res.stderr).toBe(0);
    expect(res.json()).toMatchObject({ status: 'success', data: { thread_id: id } });
  });
});
