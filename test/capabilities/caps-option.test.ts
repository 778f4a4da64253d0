import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { allowed, capStrings, parseCapsOption } from '../../src/capabilities/index.js';
import { thrown } from './thrown.js';

const dir = mkdtempSync(join(tmpdir(), 'rye-caps-'));
const read = (path: string): string => readFileSync(path, 'utf8');
const noFile = (path: string): string => {
  throw new Error(`read ${path} unexpectedly`);
};

describe('parseCapsOption()', () => {
  it('reads an inline list separated by commas and/or whitespace, without touching files', () => {
    const option = parseCapsOption(
      'rye.execute.tool.web/*, rye.search.knowledge.*  rye.load.directive.x',
      noFile,
    );
    expect(option.from).toBe('inline');
    expect(capStrings(option.set)).toEqual([
      'rye.execute.tool.web/*',
      'rye.load.directive.x',
      'rye.search.knowledge.*',
    ]);
  });

  it('reads @file and a bare path: one per line, # comments, blank lines', () => {
    const file = join(dir, 'caps.txt');
    writeFileSync(
      file,
      '# what the agent may do\nrye.execute.tool.web/*   # the scrapers\n\r\nrye.search.knowledge.*\r\n',
    );
    for (const text of [`@${file}`, file]) {
      const option = parseCapsOption(text, read);
      expect(option.from).toBe(file);
      expect(capStrings(option.set)).toEqual(['rye.execute.tool.web/*', 'rye.search.knowledge.*']);
      expect(allowed(option.set, 'load', 'tool', 'web/a')).toBe(true);
    }
  });

  it('lets a file named like a capability be read with @', () => {
    const file = join(dir, 'rye.caps');
    writeFileSync(file, 'rye.load.knowledge.kb/*\n');
    expect(capStrings(parseCapsOption(`@${file}`, read).set)).toEqual(['rye.load.knowledge.kb/*']);
  });

  it('refuses every bad entry at once with CAPABILITY_INVALID', () => {
    const error = thrown(() =>
      parseCapsOption('rye.execute.tool.ok, rye.run.tool.x, rye.load.tool.a.b', noFile),
    );
    expect(error.code).toBe('CAPABILITY_INVALID');
    expect(error.details['issues']).toEqual([
      '"rye.run.tool.x": unknown verb "run" (expected execute, search, load, sign)',
      '"rye.load.tool.a.b": the id is not an item id (segment "a.b" contains "." (ids use "/" between segments))',
    ]);
    expect(error.message).toMatch(/^Cannot use --caps: /);
  });

  it('refuses an empty list, an empty @, a file without capabilities and an oversized file', () => {
    const empty = join(dir, 'empty.txt');
    writeFileSync(empty, '# nothing granted\n\n');
    const big = join(dir, 'big.txt');
    writeFileSync(big, 'rye.load.tool.x\n'.repeat(5000));
    const cases: [string, RegExp][] = [
      ['', /names no file/],
      ['  ', /names no file/],
      ['@', /names no file/],
      [`@${empty}`, /lists no capability/],
      [big, /larger than 65536/],
    ];
    for (const [text, why] of cases) {
      const error = thrown(() => parseCapsOption(text, read));
      expect(error.code, text).toBe('CAPABILITY_INVALID');
      expect(error.message, text).toMatch(why);
    }
  });
});
