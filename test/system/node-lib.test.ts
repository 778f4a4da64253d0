import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { makeTempSpaces } from '../helpers/temp-space.js';

/** The source (unsigned) runtime library: node does not care about signature lines. */
const REGISTER = fileURLToPath(
  new URL('../../system/.ai/tools/rye/core/runtimes/lib/node/register.mjs', import.meta.url),
);
/** tsx's main loader: ESM and CommonJS hooks (a .ts file outside a "type": "module" package is CommonJS). */
const TS_LOADER = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

const ECHO_TOOL = `import { readParams, projectPath, respond } from '@rye/runtime';
respond({ params: readParams(), project: projectPath() });
`;

/** Write `files` into a fresh folder (no package.json above it) and run `entry` as node_runtime does. */
function runTool(files: Record<string, string>, entry: string, toolArgs: string[], ts = false) {
  const s = makeTempSpaces();
  const dir = join(s.root, 'tool');
  for (const [rel, text] of Object.entries(files)) s.write(rel, text, dir);
  const loaders = ['--import', REGISTER, ...(ts ? ['--import', TS_LOADER] : [])];
  const result = spawnSync(process.execPath, [...loaders, join(dir, entry), ...toolArgs], {
    cwd: dir,
    encoding: 'utf8',
  });
  if (result.error) throw result.error;
  return {
    code: result.status,
    stdout: result.stdout,
    stderr: result.stderr,
    json: () => JSON.parse(result.stdout) as unknown,
  };
}

describe('node runtime library (@rye/runtime)', () => {
  it('resolves @rye/runtime through register.mjs and reads --params and --project-path', () => {
    const res = runTool({ 'tool.mjs': ECHO_TOOL }, 'tool.mjs', [
      '--params',
      '{"a":1}',
      '--project-path',
      '/work/project',
    ]);
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expect(res.json()).toEqual({ params: { a: 1 }, project: '/work/project' });
  });

  it('gives {} and null when --params and --project-path are absent', () => {
    const res = runTool({ 'tool.mjs': ECHO_TOOL }, 'tool.mjs', []);
    expect(res.json()).toEqual({ params: {}, project: null });
  });

  it('fails clearly on --params that is not JSON, or not a JSON object', () => {
    const bad = runTool({ 'tool.mjs': ECHO_TOOL }, 'tool.mjs', ['--params', '{"a":1']);
    expect(bad.code).not.toBe(0);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toContain('Cannot read --params: not valid JSON');
    const list = runTool({ 'tool.mjs': ECHO_TOOL }, 'tool.mjs', ['--params', '[1]']);
    expect(list.code).not.toBe(0);
    expect(list.stderr).toContain('Cannot read --params: expected a JSON object');
  });

  it('fail() prints success false with extra fields, which cannot override it, and exits 1', () => {
    const tool = `import { fail } from '@rye/runtime';
fail('name is required', { field: 'name', success: true, error: 'overridden' });
`;
    const res = runTool({ 'tool.mjs': tool }, 'tool.mjs', []);
    expect(res.code).toBe(1);
    expect(res.json()).toEqual({ success: false, error: 'name is required', field: 'name' });
  });

  it('serves CommonJS tools too (require of @rye/runtime)', () => {
    const tool = `const { readParams, respond } = require('@rye/runtime');
respond({ cjs: true, params: readParams() });
`;
    const res = runTool({ 'tool.cjs': tool }, 'tool.cjs', ['--params', '{"b":2}']);
    expect(res.stderr).toBe('');
    expect(res.json()).toEqual({ cjs: true, params: { b: 2 } });
  });

  it.each(['tool.ts', 'tool.mts'])(
    'runs a TypeScript tool (%s) with the TypeScript loader after register.mjs',
    (entry) => {
      const tool = `import { readParams, respond } from '@rye/runtime';
const params: Record<string, unknown> = readParams();
respond({ typed: true, params });
`;
      const res = runTool({ [entry]: tool }, entry, ['--params', '{"c":3}'], true);
      expect(res.stderr).toBe('');
      expect(res.json()).toEqual({ typed: true, params: { c: 3 } });
    },
  );
});
