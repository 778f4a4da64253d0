/**
 * The root entry is light (issue 31): a user who imports `rye-ts` to verify a
 * file loads no provider SDK, no MCP SDK, no zod and no pg. A fresh `node`
 * imports the built package by its name, through package.json's `exports` as
 * a user's code would, with a module hook that logs every file it loads (ES
 * modules through `module.register`, CommonJS through require's cache and
 * `fs.readFileSync`: test/helpers/loaded-files.ts). The vitest global setup
 * has built dist/.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { nodeLoading } from '../helpers/loaded-files.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** What the root must never load: each is an entry's own weight. */
const HEAVY = ['@anthropic-ai/sdk', '@modelcontextprotocol/sdk', 'openai', 'pg', 'zod'];

/** The third-party packages the root may load: the parsers of signed metadata and trust files. */
const ROOT_MAY_LOAD = ['smol-toml', 'yaml'];

/** The packages (by name, scope included) whose files a run loaded, sorted. */
function packagesLoaded(paths: readonly string[]): string[] {
  const names = new Set<string>();
  for (const path of paths) {
    const rest = path.split(/[\\/]node_modules[\\/]/).at(-1);
    if (rest === undefined || rest === path) continue;
    const [first, second] = rest.split(/[\\/]/);
    names.add(first?.startsWith('@') === true ? `${first}/${second}` : (first ?? ''));
  }
  return [...names].sort();
}

/** Import the given specifiers in a fresh node, in the package root; the packages it loaded. */
async function packagesImporting(...specifiers: string[]): Promise<string[]> {
  const script = specifiers.map((s) => `await import(${JSON.stringify(s)});`).join('\n');
  const run = await nodeLoading(['--input-type=module', '-e', script], { cwd: ROOT });
  expect(run.code).toBe(0);
  return packagesLoaded(run.paths);
}

describe('the root entry', () => {
  it('importing rye-ts loads no provider SDK, MCP SDK, zod or pg', async () => {
    const loaded = await packagesImporting('rye-ts');
    expect(loaded.filter((name) => HEAVY.includes(name))).toEqual([]);
    expect(loaded.filter((name) => !ROOT_MAY_LOAD.includes(name))).toEqual([]);
  });

  it('the same probe sees each of them when an entry that needs them is imported', async () => {
    // rye-ts/threads loads both provider SDKs and zod, rye-ts/mcp the MCP SDK; pg is loaded
    // only by the registry server, which no entry exports, so the probe imports it by name.
    const loaded = await packagesImporting('rye-ts/threads', 'rye-ts/mcp', 'pg');
    expect(HEAVY.filter((name) => !loaded.includes(name))).toEqual([]);
  });
});
