import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RYE_BIN } from './cli.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** A module loader hook that logs each ES module file it loads to $RYE_TEST_LOAD_LOG. */
const HOOKS = `import { appendFileSync } from 'node:fs';
export async function load(url, context, next) {
  if (url.startsWith('file:')) appendFileSync(process.env.RYE_TEST_LOAD_LOG, 'esm ' + url + '\\n');
  return next(url, context);
}`;

/**
 * Preloaded with --require, so the entry still runs as CommonJS (an --import
 * would load it through the ES module loader): logs every JavaScript file read
 * synchronously (CommonJS modules, and the bodies src/cli/cached-body.ts runs),
 * registers the hook above for ES modules, and logs, by the time the process
 * exits, the CommonJS modules in require's cache (however Node read them) and
 * Node's public built-in modules loaded.
 */
const PRELOAD = `const fs = require('node:fs');
const read = fs.readFileSync;
fs.readFileSync = function (path, ...rest) {
  if (typeof path === 'string' && /\\.[cm]?js$/.test(path))
    fs.appendFileSync(process.env.RYE_TEST_LOAD_LOG, 'read ' + path + '\\n');
  return read.call(this, path, ...rest);
};
require('node:module').register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(HOOKS)}`)});
process.on('exit', () => {
  for (const path of Object.keys(require.cache))
    fs.appendFileSync(process.env.RYE_TEST_LOAD_LOG, 'cjs ' + path + '\\n');
  for (const m of process.moduleLoadList)
    if (m.startsWith('NativeModule ') && !m.startsWith('NativeModule internal/'))
      fs.appendFileSync(process.env.RYE_TEST_LOAD_LOG, 'builtin ' + m.slice(13) + '\\n');
});`;

export interface LoadedRun {
  readonly code: number;
  readonly stdout: string;
  /**
   * Every JavaScript file of the package the process loaded, in order, relative
   * to the package root, `/`-separated: CommonJS modules, code bodies and ES modules.
   */
  readonly files: readonly string[];
  /** The ES modules among them (none, on the fast path: src/cli/entry.ts). */
  readonly modules: readonly string[];
  /** Node's public built-in modules loaded (`fs`, `child_process`, …), this helper's own included. */
  readonly builtins: readonly string[];
  /**
   * Every JavaScript file the process loaded, absolute, wherever it is (a
   * dependency's real path may lie outside the package): the files above, and
   * every CommonJS module in require's cache at exit.
   */
  readonly paths: readonly string[];
}

/** Run the real `rye` binary and list the files of the package it loaded. */
export function ryeLoading(
  args: readonly string[],
  options: { env?: NodeJS.ProcessEnv } = {},
): Promise<LoadedRun> {
  return nodeLoading([RYE_BIN, ...args], options);
}

/** Run `node <argv>` and list the files it loaded. */
export async function nodeLoading(
  argv: readonly string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string } = {},
): Promise<LoadedRun> {
  const dir = mkdtempSync(join(tmpdir(), 'rye-load-log-'));
  const log = join(dir, 'loaded.txt');
  const preload = join(dir, 'preload.cjs');
  writeFileSync(preload, PRELOAD);
  try {
    const { code, stdout } = await new Promise<{ code: number; stdout: string }>(
      (resolve, reject) => {
        const child = spawn(process.execPath, ['--require', preload, ...argv], {
          ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
          env: { ...(options.env ?? process.env), RYE_TEST_LOAD_LOG: log },
          stdio: ['ignore', 'pipe', 'inherit'],
        });
        let out = '';
        child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
        child.on('error', reject);
        child.on('close', (c) => resolve({ code: c ?? -1, stdout: out }));
      },
    );
    let text = '';
    try {
      text = readFileSync(log, 'utf8');
    } catch {
      // Nothing loaded through the hooks: empty lists.
    }
    const inPackage = (path: string) => {
      const rel = relative(ROOT, path);
      return rel.startsWith('..') ? [] : [rel.split(sep).join('/')];
    };
    const lines = text.split('\n').filter((line) => line !== '');
    const builtins = lines.filter((l) => l.startsWith('builtin ')).map((l) => l.slice(8));
    const pathOf = (line: string) =>
      line.startsWith('esm ') ? fileURLToPath(line.slice(4)) : line.slice(line.indexOf(' ') + 1);
    const files = lines
      .filter((line) => line.startsWith('esm ') || line.startsWith('read '))
      .flatMap((line) => inPackage(pathOf(line)));
    const paths = lines.filter((line) => !line.startsWith('builtin ')).map(pathOf);
    const modules = lines
      .filter((line) => line.startsWith('esm '))
      .flatMap((line) => inPackage(fileURLToPath(line.slice(4))));
    return {
      code,
      stdout,
      files: [...new Set(files)],
      modules: [...new Set(modules)],
      builtins: [...new Set(builtins)],
      paths: [...new Set(paths)],
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The text of a loaded file (relative to the package root). */
export function loadedText(file: string): string {
  return readFileSync(join(ROOT, file), 'utf8');
}
