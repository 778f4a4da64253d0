/**
 * The node runtime's loader hooks (register.mjs → guard.cjs install()) start a
 * thread of their own on Node 20, so they are registered only when they have
 * work: a bundle's guard, '@rye/core', or a library that is not mounted as the
 * snapshot's node_modules/@rye/runtime (where Node resolves '@rye/runtime'
 * itself). module.register is replaced in the child to count the calls.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { execute } from '../../src/executor/index.js';
import { makeExecProject } from '../helpers/exec-project.js';

const LIB = fileURLToPath(
  new URL('../../system/.ai/tools/rye/core/runtimes/lib/node/', import.meta.url),
);
const root = mkdtempSync(join(tmpdir(), 'rye-node-hooks-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function libAt(...parts: string[]): string {
  const dir = join(root, ...parts);
  mkdirSync(dir, { recursive: true });
  for (const f of ['guard.cjs', 'hooks.mjs', 'rye-tool.mjs'])
    copyFileSync(join(LIB, f), join(dir, f));
  return dir;
}

/** How many times install() called module.register, under `env`. */
function registrations(lib: string, env: Record<string, string> = {}): number {
  const script = `const m = require('node:module');
let calls = 0;
m.register = () => { calls += 1; };
require(${JSON.stringify(join(lib, 'guard.cjs'))}).install();
process.stdout.write(String(calls));`;
  const base = { ...process.env };
  for (const k of ['RYE_VERIFIED_ROOTS', 'RYE_VERIFIED_MANIFEST', 'RYE_LIBRARY_URL'])
    delete base[k];
  const run = spawnSync(process.execPath, ['-e', script], {
    env: { ...base, ...env },
    encoding: 'utf8',
  });
  expect(run.status, run.stderr).toBe(0);
  return Number(run.stdout);
}

describe('node runtime loader hooks', () => {
  const mounted = libAt('snap', 'node_modules', '@rye', 'runtime');
  const plain = libAt('snap', 'l');

  it('are not registered for a plain tool when the library is mounted as @rye/runtime', () => {
    expect(registrations(mounted)).toBe(0);
  });

  it('are registered when the library is not mounted, for @rye/core, and for a bundle guard', () => {
    expect(registrations(plain)).toBe(1);
    expect(registrations(mounted, { RYE_LIBRARY_URL: 'file:///x/index.js' })).toBe(1);
    const manifest = join(root, 'manifest.json');
    writeFileSync(manifest, JSON.stringify({ files: {} }));
    const guarded = {
      RYE_VERIFIED_ROOTS: JSON.stringify([join(root, 'app')]),
      RYE_VERIFIED_MANIFEST: manifest,
    };
    expect(registrations(mounted, guarded)).toBe(1);
  });

  it("a node tool run through execute() imports '@rye/runtime' from the snapshot's mounted package", async () => {
    const p = await makeExecProject();
    p.write(
      '.ai/tools/t/where.mjs',
      `import { respond } from '@rye/runtime';
export const __version__ = '1.0.0';
export const __tool_type__ = 'javascript';
export const __executor_id__ = 'rye/core/runtimes/node_runtime';
export const __category__ = 't';
export const __tool_description__ = 'where the runtime resolves from';
respond({ url: import.meta.resolve('@rye/runtime') });
`,
    );
    await p.sign('tool', 't/where');
    const result = await execute({ spaces: p.spaces, toolId: 't/where', env: p.env });
    expect(result.status, JSON.stringify(result.error)).toBe('success');
    const url = (result.data as { url: string }).url;
    expect(url).toMatch(/\/snapshots\/[0-9a-f]{40}\/node_modules\/@rye\/runtime\/rye-tool\.mjs$/);
  });
});
