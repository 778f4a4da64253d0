import { describe, expect, it } from 'vitest';
import { authorityOf, compileCaps, parseCapability } from '../../../src/capabilities/index.js';
import { DEFAULT_LIMITS, type AdmittedHook } from '../../../src/threads/directive/index.js';
import { runHookAction, spawnRefusal } from '../../../src/threads/hooks/index.js';

const limits = { ...DEFAULT_LIMITS, spawns: 2, depth: 3 };
const hook: AdmittedHook = {
  index: 0,
  event: 'after_complete',
  resultMode: 'discard',
  action: { kind: 'directive', itemId: 'apps/serve' },
  inputs: { action: 'start' },
};

function ctx(caps: string[], lineage = { depth: 0, spawns: 0, limits }) {
  const asked: unknown[] = [];
  return {
    asked,
    ctx: {
      ops: {
        spaces: {} as never,
        env: {},
        authority: authorityOf(compileCaps(caps.map((c) => parseCapability(c))), 'thread'),
        signal: new AbortController().signal,
      },
      host: {
        runDirective: async (request: unknown) => {
          asked.push(request);
          return { thread_id: 'serve-1', status: 'budget_denied' };
        },
      },
      lineage,
    },
  };
}

describe('spawnRefusal()', () => {
  it('refuses a hook child past the spawns or depth limit of the owner record; 0 is unlimited', () => {
    expect(spawnRefusal({ depth: 0, spawns: 1, limits })).toBeUndefined();
    expect(spawnRefusal({ depth: 0, spawns: 2, limits })?.details).toMatchObject({
      limit: 'spawns',
      max: 2,
    });
    expect(spawnRefusal({ depth: 3, spawns: 0, limits })?.details).toMatchObject({
      limit: 'depth',
      current: 4,
    });
    expect(
      spawnRefusal({ depth: 9, spawns: 9, limits: { ...limits, spawns: 0, depth: 0 } }),
    ).toBeUndefined();
  });
});

describe('runHookAction()', () => {
  it('checks the owner capability before the host is asked (denied, nothing started)', async () => {
    const { ctx: c, asked } = ctx(['rye.execute.directive.other/*']);
    const result = await runHookAction(hook, hook.inputs, c);
    expect(result).toMatchObject({ outcome: 'denied', error: { code: 'CAPABILITY_DENIED' } });
    expect(asked).toEqual([]);
  });

  it('skips a hook child past the limits without asking the host (skipped_limit)', async () => {
    const { ctx: c, asked } = ctx(['rye.execute.directive.apps/*'], {
      depth: 3,
      spawns: 0,
      limits,
    });
    const result = await runHookAction(hook, hook.inputs, c);
    expect(result).toMatchObject({ outcome: 'skipped_limit' });
    expect(asked).toEqual([]);
  });

  it('records a child that ended budget_denied as skipped_limit, naming the child', async () => {
    const { ctx: c, asked } = ctx(['rye.execute.directive.apps/*']);
    const result = await runHookAction(hook, hook.inputs, c);
    expect(result).toMatchObject({ outcome: 'skipped_limit', child: 'serve-1' });
    expect(asked).toMatchObject([{ directiveId: 'apps/serve', edge: 'hook', inputs: hook.inputs }]);
  });
});
