import { existsSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { operatorAuthority } from '../../../src/capabilities/index.js';
import type { ThreadResult } from '../../../src/threads/loop/index.js';
import { spawnRootThread, threadAnswer } from '../../../src/threads/root/index.js';
import { registryDbPath } from '../../../src/threads/store/index.js';
import { refusal } from '../../helpers/refusal.js';
import { threadProject, type ThreadProject } from '../loop/fixtures.js';

const COST = { turns: 2, tokens_in: 10, tokens_out: 5, spend_usd: '0.0001', tool_calls: 1 };
const base = { ok: false, thread_id: 'x-01jf0000000000000000000000', cost: COST };

describe('threadAnswer()', () => {
  it('answers a completed thread with its outputs as data, its id and cost', () => {
    const done: ThreadResult = {
      ...base,
      ok: true,
      status: 'completed',
      outputs: { answer: 'a' },
      summary: 'Done: a',
    };
    expect(threadAnswer('demo/x', done)).toEqual({
      status: 'success',
      item_id: 'demo/x',
      data: { answer: 'a' },
      thread_id: base.thread_id,
      cost: COST,
      summary: 'Done: a',
    });
  });

  it('answers a failed outcome THREAD_FAILED with its outputs, and an error with its own code and details', () => {
    const failed: ThreadResult = { ...base, status: 'failed', outputs: { outcome: 'failure' } };
    expect(threadAnswer('demo/x', failed)).toMatchObject({
      status: 'error',
      thread_id: base.thread_id,
      cost: COST,
      error: {
        code: 'THREAD_FAILED',
        details: { thread_status: 'failed', outputs: { outcome: 'failure' } },
      },
    });
    const limited: ThreadResult = {
      ...base,
      status: 'error',
      error: { code: 'THREAD_LIMIT_EXCEEDED', message: 'turns', details: { limit: 'turns' } },
    };
    const answer = threadAnswer('demo/x', limited) as { error: { hint?: string } };
    expect(answer).toMatchObject({
      error: {
        code: 'THREAD_LIMIT_EXCEEDED',
        details: { limit: 'turns', thread_status: 'error' },
      },
    });
    expect(answer.error.hint?.length).toBeGreaterThan(10);
  });
});

describe('spawnRootThread()', () => {
  let open: ThreadProject | undefined;
  afterEach(async () => {
    await open?.server.close();
    open = undefined;
  });

  it('a worker that dies before admitting the thread is THREAD_SPAWN_FAILED, and no thread exists', async () => {
    const p = (open = await threadProject([]));
    const ctx = {
      spaces: p.spaces,
      // Node refuses to start the worker at all.
      env: { ...p.env, NODE_OPTIONS: '--require /nonexistent/rye-test-preload.cjs' },
      authority: operatorAuthority(),
    };
    const refused = await refusal(spawnRootThread(ctx, 'demo/summarise', { topic: 'x' }));
    expect(refused.code).toBe('THREAD_SPAWN_FAILED');
    expect(refused.details).toMatchObject({ exit_code: 1 });
    expect(existsSync(registryDbPath(p.project))).toBe(false);
  });

  it('an aborted caller gets nothing started', async () => {
    const p = (open = await threadProject([]));
    const controller = new AbortController();
    controller.abort('no');
    const ctx = {
      spaces: p.spaces,
      env: p.env,
      authority: operatorAuthority(),
      signal: controller.signal,
    };
    await expect(spawnRootThread(ctx, 'demo/summarise', {})).rejects.toBe('no');
    expect(existsSync(registryDbPath(p.project))).toBe(false);
  });
});
