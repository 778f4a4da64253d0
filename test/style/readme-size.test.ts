import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// Issue 12: the README is a front door (what it is, the two commands, a tour,
// links); the reference lives in docs/.
describe('README.md', () => {
  it('stays a front door: at most 10,000 characters', () => {
    const text = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    expect([...text].length).toBeLessThanOrEqual(10_000);
  });
});
