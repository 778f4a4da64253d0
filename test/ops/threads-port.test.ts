import { describe, expect, it } from 'vitest';
import { operatorAuthority } from '../../src/capabilities/index.js';
import {
  executeTool,
  runOperation,
  type OperationContext,
  type ThreadToolHandler,
  type ThreadsPort,
} from '../../src/ops/index.js';
import { makeExecProject } from '../helpers/exec-project.js';

/*
 * The operations sit below threads and reach the thread runner only through
 * the port in their context (src/ops/context.ts): without it a directive is
 * refused before anything is read; with one, the port is what runs.
 */
async function context(threads?: ThreadsPort): Promise<OperationContext> {
  const p = await makeExecProject();
  return {
    spaces: p.spaces,
    env: p.env,
    authority: operatorAuthority(),
    ...(threads === undefined ? {} : { threads }),
  };
}

const DIRECTIVE = { item_type: 'directive', item_id: 'apps/anything', dry_run: true };

describe('the thread runner port', () => {
  it('without one, executing a directive is THREAD_RUNNER_UNAVAILABLE', async () => {
    const answer = await runOperation('execute', DIRECTIVE, await context());
    expect(answer).toMatchObject({
      status: 'error',
      item_id: 'apps/anything',
      error: { code: 'THREAD_RUNNER_UNAVAILABLE' },
    });
  });

  it('with one, the directive and the thread tools go to it, with the call’s own input', async () => {
    const calls: unknown[] = [];
    const handler: ThreadToolHandler = async (_ctx, params, caller) => {
      calls.push({ params, caller });
      return { handled: true };
    };
    const port: ThreadsPort = {
      executeDirective: async (_ctx, input) => {
        calls.push(input);
        return { status: 'success', item_id: input.item_id, data: { planned: true } };
      },
      threadTool: async (toolId) =>
        toolId === 'rye/agent/threads/thread_status' ? handler : undefined,
    };
    const ctx = await context(port);
    expect(await runOperation('execute', DIRECTIVE, ctx)).toMatchObject({
      status: 'success',
      data: { planned: true },
    });
    const tool = {
      item_type: 'tool',
      item_id: 'rye/agent/threads/thread_status',
      parameters: { thread_id: 'x' },
    };
    expect(await runOperation('execute', tool, ctx)).toMatchObject({
      status: 'success',
      data: { handled: true },
    });
    expect(calls).toEqual([
      expect.objectContaining({ item_id: 'apps/anything', dry_run: true }),
      { params: { thread_id: 'x' }, caller: undefined },
    ]);
  });

  it('executeTool without a runner for nested calls is refused before anything is read', async () => {
    const ctx = await context();
    const options = { parameters: {}, dryRun: false } as unknown as Parameters<
      typeof executeTool
    >[2];
    await expect(executeTool(ctx, 'no/such/tool', options)).rejects.toThrow(/options\.nested/);
  });
});
