/**
 * The `rye` binary's entry (bin/rye.js, CommonJS; built to dist/cli/entry.cjs).
 *
 * It runs the CLI's main module and the fast runners from their bodies with
 * their code caches (src/cli/cached-body.ts), through Node's CommonJS loader:
 * a command on the fast path (`verify-file`, `verify`, `execute tool`,
 * `bundle verify`) never starts the ES module loader, which costs ~5 ms
 * before the first line of an ES module entry runs. A command line the fast
 * path recognises (fast-path.ts, a pure module bundled here) runs its runner
 * directly, without main.js (~1 ms); any other goes to `main`, which reads it
 * again. Any other import (commander's commands, a runner's on-demand chunks)
 * is an ordinary `import()`, and those modules load the same bodies' exports,
 * not copies.
 */
import { join } from 'node:path';
import { fileUrlOf } from '../platform/index.js';
import { bodyPathOf, loadCachedBody } from './cached-body.js';
import { parseFastArgv, type FastRunner } from './fast-path.js';
import type { CliIo } from './context.js';

/** What a fast runner's module exports (src/cli/fast/*.ts). */
interface FastRunnerModule {
  readonly run: FastRunner;
  readonly processIo: () => CliIo;
}

export interface RunCliOptions {
  /**
   * End the process as soon as a command on the fast path is done and its
   * output is out (bin/rye.js). Such a command's runner has awaited all it
   * started (its tool's process, timers, writes), so nothing of it is cut
   * short; `process.exit` still runs the 'exit' listeners, and skips what
   * follows a natural end: tearing down a heap that holds the code cache's
   * functions (0.5–1.3 ms of `rye execute tool`). Commander's commands end
   * naturally: some leave work running after main() returns.
   */
  readonly exit?: boolean;
}

/** `main.js` of the CLI bundle in `cliDir` (dist/cli) run on `argv`; resolves to the exit code. */
export function runCli(
  cliDir: string,
  argv: readonly string[],
  options: RunCliOptions = {},
): Promise<number> {
  const importer = (url: string): Promise<unknown> =>
    bodyPathOf(url) === undefined
      ? import(url)
      : Promise.resolve().then(() => loadCachedBody(url, importer).exports);
  // Under a RYE_CAP_TOKEN every command goes through main, which holds it to the token.
  const fast = process.env['RYE_CAP_TOKEN'] === undefined ? parseFastArgv(argv) : undefined;
  if (fast !== undefined) {
    const url = fileUrlOf(join(cliDir, 'fast', `${fast.command.runner}.js`));
    const runner = loadCachedBody(url, importer).exports as unknown as FastRunnerModule;
    const io = runner.processIo();
    const done = runner.run(io, fast.args, fast.options);
    return options.exit === true ? done.then((code) => exitFlushed(io, code)) : done;
  }
  const mainPath = join(cliDir, 'main.js');
  const { main } = loadCachedBody(fileUrlOf(mainPath), importer).exports;
  if (typeof main !== 'function') throw new Error(`${mainPath} exports no main()`);
  return (main as (argv: readonly string[]) => Promise<number>)(argv);
}

/** End the process with `code` once `io` holds no output back. */
async function exitFlushed(io: CliIo, code: number): Promise<never> {
  await io.flushed?.();
  process.exit(code);
}

/** For the build, which writes the code caches of what a run loaded (scripts/cli-code-cache.mjs). */
export { loadedBodies } from './cached-body.js';
