import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  escapeMarkdown,
  formatErrorReference,
  listedCodes,
} from '../../scripts/error-reference.js';
import { CODE_TABLES } from '../../src/errors/codes.js';
import { ERROR_CODES, exitCodeFor } from '../../src/errors/index.js';

const page = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');

describe('error codes', () => {
  it('are SCREAMING_SNAKE with a domain prefix and a hint', () => {
    for (const [code, info] of Object.entries(ERROR_CODES)) {
      expect(code).toMatch(/^[A-Z]+(_[A-Z]+)+$/);
      expect(info.hint.length).toBeGreaterThan(10);
    }
  });

  it('are each in exactly one domain table, and ERROR_CODES holds them all', () => {
    // Object spread would let a later table override a code silently; the merge throws instead.
    const tables = new Map<string, number>();
    for (const table of CODE_TABLES) {
      for (const code of Object.keys(table)) tables.set(code, (tables.get(code) ?? 0) + 1);
    }
    expect([...tables].filter(([, count]) => count !== 1)).toEqual([]);
    expect([...tables.keys()].sort()).toEqual(Object.keys(ERROR_CODES).sort());
  });

  it('docs/errors.md is what `npm run docs:errors` renders from src/errors/codes.ts', () => {
    // Stale after a code or a hint changed: run `npm run docs:errors` and commit the page.
    expect(page).toBe(formatErrorReference(ERROR_CODES));
  });

  it('docs/errors.md lists every code once, under the heading of its exit code', () => {
    const codes = Object.keys(ERROR_CODES) as (keyof typeof ERROR_CODES)[];
    expect([...listedCodes(page)].sort()).toEqual([...codes].sort());
    for (const code of codes) {
      const before = page.slice(0, page.indexOf(`| \`${code}\` |`));
      const heading = [...before.matchAll(/^## .*\(exit (\d)\)$/gm)].at(-1);
      expect(heading?.[1], code).toBe(String(exitCodeFor(code)));
    }
  });

  it('hints are escaped for Markdown outside code spans only', () => {
    expect(escapeMarkdown('in <user>/.ai, NODE_*, a|b')).toBe('in \\<user\\>/.ai, NODE_\\*, a\\|b');
    expect(escapeMarkdown('run `rye lock update <tool_id>` or `a|b`')).toBe(
      'run `rye lock update <tool_id>` or `a\\|b`',
    );
  });

  it('map integrity refusals to 3, usage to 2 and failures to 1', () => {
    expect(exitCodeFor('INTEGRITY_HASH_MISMATCH')).toBe(3);
    expect(exitCodeFor('ITEM_ID_INVALID')).toBe(2);
    expect(exitCodeFor('ITEM_NOT_FOUND')).toBe(1);
  });
});
