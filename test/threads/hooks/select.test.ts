import { describe, expect, it } from 'vitest';
import type { AdmittedHook } from '../../../src/threads/directive/index.js';
import { budgetWhens, hooksFor, whenOfLimit } from '../../../src/threads/hooks/index.js';

const hook = (index: number, event: AdmittedHook['event'], when?: string): AdmittedHook => ({
  index,
  event,
  ...(when === undefined ? {} : { when }),
  resultMode: 'discard',
  action: { kind: 'tool', itemId: 't/x' },
  inputs: {},
});

describe('hook selection', () => {
  it('names each limit as its when value', () => {
    expect(
      ['turns', 'tokens', 'spend', 'duration_seconds', 'spawns', 'depth', 'tool_calls'].map(
        whenOfLimit,
      ),
    ).toEqual([
      'turns_exceeded',
      'tokens_exceeded',
      'spend_exceeded',
      'duration_exceeded',
      'spawns_exceeded',
      'depth_exceeded',
      'tool_calls_exceeded',
    ]);
  });

  it('fires spend_exceeded too when the refusing account is the thread own', () => {
    expect(budgetWhens('a-1', 'a-1')).toEqual(['spend_exceeded', 'budget_denied']);
    expect(budgetWhens('a-1', 'root-1')).toEqual(['budget_denied']);
    expect(budgetWhens('a-1', undefined)).toEqual(['budget_denied']);
  });

  it('matches hooks by event, then by when (a hook without when fires on every limit), in order', () => {
    const hooks = [
      hook(0, 'limit', 'turns_exceeded'),
      hook(1, 'after_step'),
      hook(2, 'limit'),
      hook(3, 'limit', 'budget_denied'),
    ];
    expect(hooksFor(hooks, 'limit', ['turns_exceeded']).map((h) => h.index)).toEqual([0, 2]);
    expect(hooksFor(hooks, 'limit', ['budget_denied']).map((h) => h.index)).toEqual([2, 3]);
    expect(hooksFor(hooks, 'after_step').map((h) => h.index)).toEqual([1]);
    expect(hooksFor(hooks, 'error')).toEqual([]);
  });
});
