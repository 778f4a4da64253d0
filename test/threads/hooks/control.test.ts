import { describe, expect, it } from 'vitest';
import { MAX_SUMMARY_CHARS, parseControl } from '../../../src/threads/hooks/index.js';

describe('parseControl()', () => {
  it('accepts the control value of each event, extra output fields included', () => {
    expect(parseControl('error', { action: 'retry', outcome: 'success' })).toEqual({
      ok: true,
      value: { action: 'retry' },
    });
    expect(parseControl('context_window_pressure', { summary: ' short ' })).toEqual({
      ok: true,
      value: { summary: 'short' },
    });
  });

  it('refuses anything else, saying why', () => {
    for (const [event, value] of [
      ['error', { action: 'maybe' }],
      ['error', 'retry'],
      ['context_window_pressure', { summary: '' }],
      ['context_window_pressure', { summary: 'x'.repeat(MAX_SUMMARY_CHARS + 1) }],
      ['context_window_pressure', null],
    ] as const) {
      const checked = parseControl(event, value);
      expect(checked.ok, JSON.stringify(value)?.slice(0, 40)).toBe(false);
      if (!checked.ok) expect(checked.problem).not.toBe('');
    }
  });
});
