/**
 * scripts/cli-bundle-builtins.mjs: in the CLI bundle, a static import of a
 * Node built-in becomes a require of it, and a named import of a function from
 * the few built-ins a run rarely calls becomes a function that requires the
 * built-in on its first call.
 */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a build script, plain JavaScript without declarations
import { builtinsThroughRequire } from '../../scripts/cli-bundle-builtins.mjs';

const rewrite = (text: string): string =>
  (builtinsThroughRequire as (t: string, f: string) => string)(text, 'x.js');

describe('builtinsThroughRequire', () => {
  it('requires a built-in where it was imported, in every import form', () => {
    expect(rewrite('import { a, b as c } from "node:fs";')).toBe(
      'const { a, b: c } = require("node:fs");',
    );
    expect(rewrite('import * as p from "node:path";')).toBe('const p = require("node:path");');
    expect(rewrite('import os from "os";')).toBe('const os = require("os");');
    expect(rewrite('import x, { y } from "node:url";')).toBe(
      'const x = require("node:url"), { y } = x;',
    );
    expect(rewrite('import { a } from "./chunk.js";')).toBe('import { a } from "./chunk.js";');
  });

  it('makes the functions of fs/promises and timers/promises require them on first call', async () => {
    const text = rewrite(
      'import { stat, readFile as read } from "node:fs/promises";\nimport { setTimeout as delay } from "node:timers/promises";',
    );
    expect(text).toBe(
      'const stat = (...args) => require("node:fs/promises").stat(...args), read = (...args) => require("node:fs/promises").readFile(...args);\n' +
        'const delay = (...args) => require("node:timers/promises").setTimeout(...args);',
    );
    const required: string[] = [];
    const real = createRequire(import.meta.url);
    const fns = new Function('require', `${text}\nreturn { stat, read, delay };`)((s: string) => {
      required.push(s);
      return real(s) as unknown;
    }) as Record<string, (...args: unknown[]) => Promise<unknown>>;
    expect(required).toEqual([]);
    await expect(fns['delay']?.(1, 'done')).resolves.toBe('done');
    expect(
      ((await fns['stat']?.(import.meta.dirname)) as { isDirectory(): boolean }).isDirectory(),
    ).toBe(true);
    expect(required).toEqual(['node:timers/promises', 'node:fs/promises']);
  });

  it('keeps an import of anything but functions from those, or all of them, as a plain require', () => {
    expect(rewrite('import { constants } from "node:fs/promises";')).toBe(
      'const { constants } = require("node:fs/promises");',
    );
    expect(rewrite('import * as fsp from "node:fs/promises";')).toBe(
      'const fsp = require("node:fs/promises");',
    );
  });
});
