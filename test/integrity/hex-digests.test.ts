import { describe, expect, it } from 'vitest';
import { hexDigestsEqual, sha256Hex } from '../../src/integrity/index.js';

describe('hexDigestsEqual()', () => {
  it('tells equal digests from different ones, whatever their length, call after call', () => {
    const a = sha256Hex('a');
    const b = sha256Hex('b');
    expect(hexDigestsEqual(a, a)).toBe(true);
    expect(hexDigestsEqual(a, `${a}`)).toBe(true);
    expect(hexDigestsEqual(a, b)).toBe(false);
    expect(hexDigestsEqual(a, a.slice(0, 63))).toBe(false);
    expect(hexDigestsEqual('', '')).toBe(true);
    // Longer than the first scratch buffer, then short again: nothing left over counts.
    const long = 'f'.repeat(300);
    expect(hexDigestsEqual(long, long)).toBe(true);
    expect(hexDigestsEqual(long, `${'f'.repeat(299)}e`)).toBe(false);
    expect(hexDigestsEqual(`${a.slice(0, 63)}0`, `${a.slice(0, 63)}1`)).toBe(false);
    expect(hexDigestsEqual(b, b)).toBe(true);
  });
});
