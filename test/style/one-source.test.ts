import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The helpers that must have one source (issue 12): quoting text from outside
 * in a message, compiling a glob, and reading fields of untrusted JSON. A
 * second copy drifts (a second printable() once kept U+2028 as `?` while the
 * first left it for the output edge), so each is defined once, in platform.
 */
const SRC = fileURLToPath(new URL('../../src', import.meta.url));

const ONE_SOURCE: readonly { readonly name: string; readonly re: RegExp; readonly home: string }[] =
  [
    { name: 'printable()', re: /\bfunction\s+printable\b/, home: 'platform/terminal-text.ts' },
    { name: 'compileGlob()', re: /\bfunction\s+compileGlob\b/, home: 'platform/glob.ts' },
    { name: 'FieldReader', re: /\bclass\s+FieldReader\b/, home: 'platform/json-fields.ts' },
  ];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

describe('shared helpers have one source', () => {
  const files = sourceFiles(SRC).map((path) => ({
    rel: relative(SRC, path).split('\\').join('/'),
    text: readFileSync(path, 'utf8'),
  }));

  it.each(ONE_SOURCE)('$name is defined only in $home', ({ re, home }) => {
    expect(files.filter((f) => re.test(f.text)).map((f) => f.rel)).toEqual([home]);
  });
});
