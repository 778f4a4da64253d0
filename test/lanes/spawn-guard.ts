import { appendFileSync } from 'node:fs';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { relative } from 'node:path';
import { afterAll, expect } from 'vitest';
import { SPAWNING } from './spawning.js';

/**
 * Setup file of both lanes (vitest.config.ts): a file not named in
 * test/lanes/spawning.ts may not start a process. Every way
 * `node:child_process` starts one is wrapped (its seven functions, and
 * `ChildProcess.prototype.spawn`, which the asynchronous ones and libraries
 * such as cross-spawn reach); in such a file a call throws, and the file fails
 * in `afterAll` even when the code under test caught the throw.
 *
 * With RYE_SPAWN_LOG=<file> every call, in any file, goes ahead and appends
 * one `<test file>\t<command as JSON>` line to that file: the measurement the
 * list is made from (docs/development.md, "Two lanes").
 */
const ROOT = new URL('../..', import.meta.url).pathname;
const FUNCTIONS = [
  'spawn',
  'spawnSync',
  'exec',
  'execSync',
  'execFile',
  'execFileSync',
  'fork',
] as const;
const WRAPPED = Symbol.for('rye.test.spawnGuard');
/**
 * The refused calls of the running file: on globalThis, reset by each run of
 * this file, because the wrappers outlive a file when a worker is reused.
 */
const REFUSED = Symbol.for('rye.test.spawnGuard.refused');
const state = globalThis as { [REFUSED]?: string[] };
const refused: string[] = (state[REFUSED] = []);
const log = process.env['RYE_SPAWN_LOG'];
const allowed = new Set(SPAWNING);

function testFile(): string {
  const path = expect.getState().testPath ?? '(unknown test file)';
  return relative(ROOT, path).split('\\').join('/');
}

function commandOf(args: readonly unknown[]): string {
  const [command, argv] = args;
  const words = [command, ...(Array.isArray(argv) ? argv : [])];
  return JSON.stringify(words.map((w) => (typeof w === 'string' ? w : typeof w)));
}

function check(args: readonly unknown[]): void {
  const file = testFile();
  if (log !== undefined) appendFileSync(log, `${file}\t${commandOf(args)}\n`);
  if (log !== undefined || allowed.has(file)) return;
  const call = `${file} ran ${commandOf(args)}`;
  state[REFUSED]?.push(call);
  throw new Error(
    `Cannot start a process in the fast lane: ${call}. Name the file in ` +
      'test/lanes/spawning.ts (it then runs in the spawning lane).',
  );
}

// `any`: the wrappers forward every overload of node:child_process unchanged.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Fn = (this: unknown, ...args: any[]) => unknown;

function wrap(
  target: Record<string, unknown>,
  name: string,
  argsOf = (args: unknown[]): unknown[] => args,
): void {
  const original = target[name] as Fn & { [WRAPPED]?: true };
  if (original[WRAPPED]) return;
  const wrapped = function (this: unknown, ...args: unknown[]): unknown {
    check(argsOf(args));
    return original.apply(this, args);
  };
  Object.defineProperty(wrapped, WRAPPED, { value: true });
  target[name] = wrapped;
}

const childProcess = createRequire(import.meta.url)('node:child_process') as Record<
  string,
  unknown
> & { ChildProcess: { prototype: Record<string, unknown> } };
for (const name of FUNCTIONS) wrap(childProcess, name);
// The shared route of spawn, exec, execFile and fork: `spawn({ file, args })`.
wrap(childProcess.ChildProcess.prototype, 'spawn', (args) => {
  const options = args[0] as { file?: unknown; args?: unknown } | undefined;
  return [options?.file, Array.isArray(options?.args) ? options.args.slice(1) : []];
});
// ES module imports of node:child_process see the wrappers too.
syncBuiltinESMExports();

afterAll(() => {
  if (refused.length > 0)
    throw new Error(
      `${refused.length} process start(s) refused in the fast lane; the first: ${refused[0]}. ` +
        'Name the file in test/lanes/spawning.ts.',
    );
});
