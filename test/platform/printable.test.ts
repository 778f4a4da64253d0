import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hasControl, printable } from '../../src/platform/index.js';

describe('printable()', () => {
  it('replaces what a terminal would act on or hide with ?', () => {
    expect(printable('a\x1b[2Jb\r\n\u202ec\u0085', 100)).toBe('a?[2Jb???c?');
  });

  it('keeps at most max characters and never splits a surrogate pair', () => {
    expect(printable('abcdef', 3)).toBe('abc');
    expect(printable('😀😀😀', 2)).toBe('😀😀');
    expect(printable(`a${'😀'.repeat(10)}`, 4)).toBe('a😀😀😀');
  });

  it('never returns a character escapeControl would rewrite, nor more than max', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.integer({ min: 0, max: 50 }), (text, max) => {
        const shown = printable(text, max);
        expect(hasControl(shown)).toBe(false);
        expect(Array.from(shown).length).toBeLessThanOrEqual(max);
      }),
    );
  });
});
