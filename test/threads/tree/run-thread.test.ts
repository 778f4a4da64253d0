import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readSigner } from '../../../src/integrity/index.js';
import { keyDir } from '../../../src/items/index.js';
import { operatorAuthority } from '../../../src/capabilities/index.js';
import { runThread } from '../../../src/threads/tree/index.js';
import { planDirectiveOperation } from '../../../src/threads/admission/index.js';
import { createProviderClient, selectProvider } from '../../../src/threads/providers/index.js';
import { isRyeError } from '../../../src/errors/index.js';
import { setTimeout as delay } from 'node:timers/promises';
import { threadProject, verifiedEvents, type ThreadProject } from '../loop/fixtures.js';

let open: ThreadProject | undefined;
afterEach(async () => {
  await open?.server.close();
  open = undefined;
});

describe('runThread()', () => {
  it('refuses an unpriced model under a finite spend limit before any request or write (BUDGET_UNPRICED_MODEL)', async () => {
    const p = (open = await threadProject([{ turns: [{ text: 'never sent' }] }]));
    const ops = { spaces: p.spaces, env: p.env, authority: operatorAuthority() };
    const plan = await planDirectiveOperation(ops, 'demo/summarise', { topic: 'x' });
    expect(plan.model).not.toBeNull();
    const selection = await selectProvider(
      p.spaces,
      { provider: 'anthropic', id: plan.model?.model },
      { env: p.env },
    );
    // Descriptors must price every model; a plan can still reach the runner without prices
    // (another caller, a future descriptor field), and the runner checks again.
    const unpriced = { ...plan, model: { ...plan.model!, pricing: {} as never } };
    const error = await runThread({
      projectRoot: p.project,
      ops,
      plan: unpriced,
      returnSchema: undefined,
      client: createProviderClient(selection, { env: p.env }),
      signer: await readSigner(keyDir(p.spaces)),
    }).catch((e: unknown) => e);
    expect(isRyeError(error, 'BUDGET_UNPRICED_MODEL')).toBe(true);
    expect(p.server.requests.length).toBe(0);
    expect(existsSync(join(p.project, '.ai', 'threads'))).toBe(false);
  });

  it('ends cancelled when its signal aborts mid-request: the attempt is released or charged, the transcript sealed', async () => {
    const p = (open = await threadProject([{ turns: [{ fault: 'stall' }] }]));
    const ops = { spaces: p.spaces, env: p.env, authority: operatorAuthority() };
    const plan = await planDirectiveOperation(ops, 'demo/summarise', { topic: 'x' });
    const selection = await selectProvider(
      p.spaces,
      { provider: 'anthropic', id: plan.model?.model },
      { env: p.env },
    );
    const controller = new AbortController();
    const running = runThread({
      projectRoot: p.project,
      ops,
      plan,
      returnSchema: undefined,
      client: createProviderClient(selection, { env: p.env }),
      signer: await readSigner(keyDir(p.spaces)),
      signal: controller.signal,
    });
    while (p.server.requests.length === 0) await delay(10);
    controller.abort('operator asked');
    const result = await running;
    expect(result).toMatchObject({ status: 'cancelled', error: { code: 'THREAD_CANCELLED' } });
    expect(result.error?.message).toContain('operator asked');
    const events = await verifiedEvents(p, result.thread_id);
    expect(events.filter((e) => e.type !== 'checkpoint').at(-1)?.type).toBe('thread_cancelled');
    expect(events.filter((e) => e.type === 'budget').map((e) => e.payload['op'])).toEqual([
      'reserve',
      'issue',
      'release',
    ]);
  });
});
