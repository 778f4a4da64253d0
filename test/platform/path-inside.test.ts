import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { relativeInside } from '../../src/platform/index.js';

const base = resolve('/tmp/rye-base');

describe('relativeInside()', () => {
  it('returns the empty string for the base itself', () => {
    expect(relativeInside(base, base)).toBe('');
    expect(relativeInside(base, `${base}/`)).toBe('');
  });

  it('returns the /-separated path of a file under the base', () => {
    expect(relativeInside(base, join(base, 'lib', 'util.py'))).toBe('lib/util.py');
  });

  it('keeps a file whose name starts with two dots inside', () => {
    expect(relativeInside(base, join(base, '..x.py'))).toBe('..x.py');
    expect(relativeInside(base, join(base, 'lib', '..hidden'))).toBe('lib/..hidden');
    expect(relativeInside(base, join(base, '...'))).toBe('...');
  });

  it('rejects the parent, a sibling and anything reached through ..', () => {
    expect(relativeInside(base, resolve(base, '..'))).toBeUndefined();
    expect(relativeInside(base, resolve(base, '..', 'rye-base-other'))).toBeUndefined();
    expect(relativeInside(base, resolve(base, 'lib', '..', '..', 'x.py'))).toBeUndefined();
    expect(relativeInside(base, resolve(base, '..', '..x.py'))).toBeUndefined();
  });

  it('rejects a path under a sibling folder that shares the base as a prefix', () => {
    expect(relativeInside(base, `${base}-evil/x.py`)).toBeUndefined();
  });
});
