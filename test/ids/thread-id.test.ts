import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  THREAD_ID_PATTERN,
  fixedClock,
  newThreadId,
  parseThreadId,
  threadIdMillis,
  threadLeaf,
  tryParseThreadId,
} from '../../src/ids/index.js';
import { expectRyeError } from '../threads/support.js';

const zeros = (n: number): Uint8Array => new Uint8Array(n);

describe('newThreadId()', () => {
  it('is the leaf, a dash, 10 digits of time and 16 of randomness', () => {
    const id = newThreadId('apps/crud/implement_feature', fixedClock(1_767_225_600_000), zeros);
    expect(id).toBe('implement_feature-01kdvdna000000000000000000');
    expect(id).toMatch(THREAD_ID_PATTERN);
    expect(threadIdMillis(id)).toBe(1_767_225_600_000);
  });

  it('encodes every random bit (all ones is all z)', () => {
    const id = newThreadId('x', fixedClock(0), (n) => new Uint8Array(n).fill(0xff));
    expect(id).toBe('x-0000000000zzzzzzzzzzzzzzzz');
  });

  it('sorts by creation time for one leaf', () => {
    const a = newThreadId('d', fixedClock(1000), (n) => new Uint8Array(n).fill(0xff));
    const b = newThreadId('d', fixedClock(1001), zeros);
    expect(a < b).toBe(true);
  });

  it('always yields an id parseThreadId accepts, whatever the directive id', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary', maxLength: 120 }),
        fc.integer({ min: 0, max: 2 ** 48 }),
        fc.uint8Array({ minLength: 10, maxLength: 10 }),
        (directive, ms, bytes) => {
          const id = newThreadId(directive, fixedClock(ms), () => bytes);
          expect(parseThreadId(id)).toBe(id);
          expect(threadIdMillis(id)).toBe(ms);
        },
      ),
    );
  });

  it('refuses a clock outside the 50-bit range', () => {
    expectRyeError(() => newThreadId('d', fixedClock(-1), zeros), 'THREAD_ID_INVALID');
    expectRyeError(() => newThreadId('d', fixedClock(2 ** 50), zeros), 'THREAD_ID_INVALID');
    expectRyeError(() => newThreadId('d', fixedClock(1.5), zeros), 'THREAD_ID_INVALID');
  });
});

describe('threadLeaf()', () => {
  it('lowercases the last segment and turns other characters into _', () => {
    expect(threadLeaf('rye/agent/Build-And.Serve')).toBe('build_and_serve');
    expect(threadLeaf('héllo wörld')).toBe('h_llo_w_rld');
    expect(threadLeaf('emoji/🚀x')).toBe('_x');
  });

  it('keeps at most 40 characters, and never an empty leaf', () => {
    expect(threadLeaf('a'.repeat(100))).toBe('a'.repeat(40));
    expect(threadLeaf('dir/')).toBe('thread');
  });
});

describe('parseThreadId()', () => {
  it.each([
    '../etc-01kdx1kw000000000000000000',
    'a/b-01kdx1kw000000000000000000',
    'x-01kdx1kw00000000000000000',
    'x-01kdx1kw0000000000000000000',
    'X-01kdx1kw000000000000000000',
    'x-01kdx1kw00000000000000000i',
    'x-01kdx1kw00000000000000000u',
    '-01kdx1kw000000000000000000',
    `${'a'.repeat(41)}-01kdx1kw000000000000000000`,
    'x-01kdx1kw000000000000000000\n',
    'x-01kdx1kw000000000000000000\0',
    '',
  ])('refuses %j before any path is built', (value) => {
    expectRyeError(() => parseThreadId(value), 'THREAD_ID_INVALID');
    expect(tryParseThreadId(value)).toBeUndefined();
  });

  it('refuses non-strings', () => {
    for (const value of [null, undefined, 42, {}, ['x-01kdx1kw000000000000000000']]) {
      expectRyeError(() => parseThreadId(value), 'THREAD_ID_INVALID');
    }
  });
});
