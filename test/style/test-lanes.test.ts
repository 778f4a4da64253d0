import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { compareCodePoints } from '../../src/integrity/index.js';
import { SPAWNING } from '../lanes/spawning.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

describe('the spawning lane list (test/lanes/spawning.ts)', () => {
  it('names only test files that exist, so a moved or deleted suite cannot leave a stale entry', () => {
    const stale = SPAWNING.filter((f) => !f.endsWith('.test.ts') || !existsSync(`${ROOT}/${f}`));
    expect(stale).toEqual([]);
  });

  it('is sorted and names each file once', () => {
    expect([...new Set(SPAWNING)].sort(compareCodePoints)).toEqual(SPAWNING);
  });
});
