import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { printable } from '../../src/platform/index.js';

describe('printable()', () => {
  it('replaces control characters (C0, DEL, C1) with ? and keeps the rest for the output edge', () => {
    expect(printable('a\x1b[2Jb\r\n\x7fc\u0085\u202ed', 100)).toBe('a?[2Jb???c?\u202ed');
  });

  it('keeps at most max characters and never splits a surrogate pair', () => {
    expect(printable('abcdef', 3)).toBe('abc');
    expect(printable('😀😀😀', 2)).toBe('😀😀');
    expect(printable(`a${'😀'.repeat(10)}`, 4)).toBe('a😀😀😀');
  });

  it('never returns a control character, nor more than max characters', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.integer({ min: 0, max: 50 }), (text, max) => {
        const shown = printable(text, max);
        expect(/\p{Cc}/u.test(shown)).toBe(false);
        expect(Array.from(shown).length).toBeLessThanOrEqual(max);
      }),
    );
  });
});
