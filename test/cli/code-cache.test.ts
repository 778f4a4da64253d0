/**
 * The CLI's main module and fast runners run from their bodies with the V8
 * code cache the build made (src/cli/cached-body.ts, scripts/cli-code-cache.mjs):
 * used when it was made from these bytes under this V8 and these flags, and
 * otherwise left aside, the same code compiled and run instead.
 */
import { spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { codeCachePath } from '../../src/cli/cached-body.js';
import { VERSION } from '../../src/cli/main.js';
import { RYE_BIN } from '../helpers/cli.js';
import { makeExecProject } from '../helpers/exec-project.js';
import { PYTHON_TOOL } from '../helpers/items.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLI = join(ROOT, 'dist', 'cli');
const BODIES = ['main', 'fast/verify-file', 'fast/verify', 'fast/execute', 'fast/bundle-verify'];

const work = mkdtempSync(join(tmpdir(), 'rye-code-cache-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** What became of each body's code cache when `cliDir`'s modules were imported (node `flags`). */
function states(cliDir: string, flags: string[] = []): Record<string, string> {
  const script = `const out = {};
for (const name of ${JSON.stringify(BODIES)})
  out[name] = (await import(${JSON.stringify(cliDir)} + '/' + name + '.js')).__ryeCodeCache.state;
console.log(JSON.stringify(out));`;
  const res = spawnSync(process.execPath, [...flags, '--input-type=module', '-e', script], {
    encoding: 'utf8',
  });
  expect(res.status, res.stderr).toBe(0);
  return JSON.parse(res.stdout) as Record<string, string>;
}

const all = (state: string) => Object.fromEntries(BODIES.map((b) => [b, state]));

/** A copy of the built package (its dependencies linked) whose files a test may spoil. */
function copyOfPackage(): { root: string; cli: string; bin: string } {
  const root = mkdtempSync(join(work, 'package-'));
  cpSync(join(ROOT, 'bin'), join(root, 'bin'), { recursive: true });
  cpSync(CLI, join(root, 'dist', 'cli'), { recursive: true });
  cpSync(join(ROOT, 'dist', 'system'), join(root, 'dist', 'system'), { recursive: true });
  cpSync(join(ROOT, 'package.json'), join(root, 'package.json'));
  symlinkSync(join(ROOT, 'node_modules'), join(root, 'node_modules'), 'dir');
  return { root, cli: join(root, 'dist', 'cli'), bin: join(root, 'bin', 'rye.js') };
}

describe('the code caches', () => {
  it('the build made one for each body, for this Node, and each is used', () => {
    for (const name of BODIES)
      expect(existsSync(codeCachePath(join(CLI, `${name}.body.js`))), name).toBe(true);
    expect(states(CLI)).toEqual(all('used'));
  });

  it('every body is ASCII, so it is read without decoding (a comment esbuild keeps must be ASCII too)', () => {
    for (const name of BODIES) {
      const text = readFileSync(join(CLI, `${name}.body.js`), 'latin1');
      const line = text.split('\n').findIndex((l) => /[\u0080-\uffff]/.test(l));
      expect(line, `${name}.body.js line ${line + 1}`).toBe(-1);
    }
  });

  it('V8 refuses them under other flags: the bodies compile and the CLI works the same', () => {
    expect(states(CLI, ['--no-opt'])).toEqual(all('rejected'));
    const res = spawnSync(process.execPath, ['--no-opt', RYE_BIN, '--version'], {
      encoding: 'utf8',
    });
    expect(res.stdout).toBe(`${VERSION}\n`);
  });

  it('a body changed after the build (same length) leaves its cache aside', () => {
    const copy = copyOfPackage();
    const body = join(copy.cli, 'main.body.js');
    const text = readFileSync(body, 'latin1');
    // V8 alone would take the cache: it checks the source's length, not its bytes.
    const changed = text.replace('"use strict";', '"use strict"\n');
    expect(changed.length).toBe(text.length);
    writeFileSync(body, changed, 'latin1');
    expect(states(copy.cli)).toEqual({ ...all('used'), main: 'stale' });
    const res = spawnSync(process.execPath, [copy.bin, '--version'], { encoding: 'utf8' });
    expect(res.stdout).toBe(`${VERSION}\n`);
  });

  it('a cache cut short, spoiled, emptied or missing is left aside', () => {
    const copy = copyOfPackage();
    const path = (name: string) => codeCachePath(join(copy.cli, `${name}.body.js`));
    const cache = readFileSync(path('fast/verify'));
    writeFileSync(path('fast/verify'), cache.subarray(0, cache.length - 1));
    const spoiled = Buffer.from(readFileSync(path('fast/execute')));
    spoiled[spoiled.length - 100] = (spoiled[spoiled.length - 100] ?? 0) ^ 0xff;
    writeFileSync(path('fast/execute'), spoiled);
    writeFileSync(path('fast/verify-file'), '');
    rmSync(path('main'));
    expect(states(copy.cli)).toEqual({
      main: 'absent',
      'fast/verify-file': 'stale',
      'fast/verify': 'stale',
      'fast/execute': 'stale',
      'fast/bundle-verify': 'used',
    });
  });

  it("a cached body's stack frames name where it runs or its place in the package, never the build's folder", () => {
    const copy = copyOfPackage();
    // The first write of `rye --version` comes from main.body.js: its frame says where that is.
    const script = `const fs = require('node:fs');
const write = fs.writeSync;
let frame;
fs.writeSync = function (...args) {
  frame ??= new Error().stack.split('\\n')[2];
  return write.apply(this, args);
};
const { runCli, loadedBodies } = require(${JSON.stringify(join(copy.cli, 'entry.cjs'))});
runCli(${JSON.stringify(copy.cli)}, ['--version']).then(() => {
  const state = loadedBodies().get(${JSON.stringify(join(copy.cli, 'main.body.js'))}).codeCache.state;
  process.stderr.write(JSON.stringify({ frame, state }));
});`;
    const res = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
    expect(res.stdout).toBe(`${VERSION}\n`);
    const { frame, state } = JSON.parse(res.stderr) as { frame: string; state: string };
    expect(state).toBe('used');
    const file = /\((.*):\d+:\d+\)$/.exec(frame)?.[1];
    // Node 20 (V8 11) names the frame as the build compiled it; newer V8 by the running file.
    const v8Major = Number(process.versions.v8.split('.')[0]);
    expect(file).toBe(
      v8Major < 12 ? 'rye-ts/dist/cli/main.body.js' : join(copy.cli, 'main.body.js'),
    );
  });

  it('runs a tool the same with its cache, without one and with V8 refusing it', async () => {
    const p = await makeExecProject();
    p.write('.ai/tools/t/noop.py', PYTHON_TOOL('t').replace('print("hi")', `print('{"n": 1}')`));
    await p.sign('tool', 't/noop');
    const copy = copyOfPackage();
    rmSync(codeCachePath(join(copy.cli, 'fast/execute.body.js')));
    const args = ['execute', 'tool', 't/noop', '--project', p.project, '--json'];
    // The first run writes the tool's lockfile; the runs compared all use it.
    spawnSync(process.execPath, [RYE_BIN, ...args], { env: p.env });
    const outcomes = [
      spawnSync(process.execPath, [RYE_BIN, ...args], { env: p.env, encoding: 'utf8' }),
      spawnSync(process.execPath, [copy.bin, ...args], { env: p.env, encoding: 'utf8' }),
      spawnSync(process.execPath, ['--no-opt', RYE_BIN, ...args], {
        env: p.env,
        encoding: 'utf8',
      }),
    ].map((res) => {
      expect(res.status, res.stdout + res.stderr).toBe(0);
      const out = JSON.parse(res.stdout) as { metadata: Record<string, unknown> };
      delete out.metadata['duration_ms'];
      return out;
    });
    expect(outcomes[0]).toMatchObject({ ok: true, data: { n: 1 } });
    expect(outcomes[1]).toEqual(outcomes[0]);
    expect(outcomes[2]).toEqual(outcomes[0]);
  }, 60_000);
});
