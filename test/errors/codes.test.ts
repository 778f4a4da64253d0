import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, exitCodeFor } from '../../src/errors/index.js';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

describe('error codes', () => {
  it('are SCREAMING_SNAKE with a domain prefix and a hint', () => {
    for (const [code, info] of Object.entries(ERROR_CODES)) {
      expect(code).toMatch(/^[A-Z]+(_[A-Z]+)+$/);
      expect(info.hint.length).toBeGreaterThan(10);
    }
  });

  it('are all listed in the README with their exit code', () => {
    for (const code of Object.keys(ERROR_CODES) as (keyof typeof ERROR_CODES)[]) {
      expect(readme, code).toContain(`| \`${code}\` | ${exitCodeFor(code)} |`);
    }
  });

  it('map integrity refusals to 3, usage to 2 and failures to 1', () => {
    expect(exitCodeFor('INTEGRITY_HASH_MISMATCH')).toBe(3);
    expect(exitCodeFor('ITEM_ID_INVALID')).toBe(2);
    expect(exitCodeFor('ITEM_NOT_FOUND')).toBe(1);
  });
});
