import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { RYE_BIN } from '../helpers/cli.js';
import { makeMcpProject, type McpProject } from './support.js';

/*
 * A smoke check with the MCP Inspector's CLI (THREADS.md §13). Version 0.15.0
 * is the last that runs on Node 20 (0.16 needs Node ≥ 22.7.5); it is a
 * pinned devDependency, never fetched by the test: its absence is a failure,
 * not a skip, so the check can never go missing silently.
 */
const PACKAGE = fileURLToPath(
  new URL('../../node_modules/@modelcontextprotocol/inspector/package.json', import.meta.url),
);

function inspectorBin(): string {
  const pkg = JSON.parse(readFileSync(PACKAGE, 'utf8')) as { bin: Record<string, string> };
  return join(dirname(PACKAGE), pkg.bin['mcp-inspector'] ?? 'cli/build/cli.js');
}

/** `mcp-inspector --cli node bin/rye.js mcp serve <args>`, run in the project folder. */
function inspect(p: McpProject, args: readonly string[]): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    // The project comes from the working directory: no server flag can be
    // mistaken for one of the inspector's own.
    const child = spawn(
      process.execPath,
      [inspectorBin(), '--cli', process.execPath, RYE_BIN, 'mcp', 'serve', ...args],
      { cwd: p.project, env: p.env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`inspector exited ${code}: ${err}`));
      try {
        resolve(JSON.parse(out.slice(out.indexOf('{'))) as Record<string, unknown>);
      } catch (error) {
        reject(new Error(`inspector printed no JSON: ${out} ${err}`, { cause: error }));
      }
    });
  });
}

it('@modelcontextprotocol/inspector@0.15.0 is installed (a devDependency)', () => {
  expect(existsSync(PACKAGE)).toBe(true);
});

describe('the MCP Inspector CLI against rye mcp serve', () => {
  it('lists the four tools', async () => {
    const p = await makeMcpProject();
    const listed = await inspect(p, ['--method', 'tools/list']);
    const tools = listed['tools'] as { name: string; inputSchema: { type: string } }[];
    expect(tools.map((t) => t.name)).toEqual(['execute', 'search', 'load', 'sign']);
    expect(tools.every((t) => t.inputSchema.type === 'object')).toBe(true);
  });

  it('calls load and search, and gets a refusal as an error result', async () => {
    const p = await makeMcpProject();
    const loaded = await inspect(p, [
      '--method',
      'tools/call',
      '--tool-name',
      'load',
      '--tool-arg',
      'item_type=knowledge',
      '--tool-arg',
      'item_id=notes/alpha',
    ]);
    expect(loaded['structuredContent']).toMatchObject({
      status: 'success',
      item_id: 'notes/alpha',
    });
    const found = await inspect(p, [
      '--method',
      'tools/call',
      '--tool-name',
      'search',
      '--tool-arg',
      'query=alpha',
    ]);
    expect(JSON.stringify(found['structuredContent'])).toContain('notes/alpha');
    const refused = await inspect(p, [
      '--method',
      'tools/call',
      '--tool-name',
      'load',
      '--tool-arg',
      'item_type=knowledge',
      '--tool-arg',
      'item_id=notes/missing',
    ]);
    expect(refused).toMatchObject({
      isError: true,
      structuredContent: { error: { code: 'ITEM_NOT_FOUND' } },
    });
  });
});
