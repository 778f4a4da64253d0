import type { CliIo } from './context.js';
import { descriptorWriter, lazyGuardedWriter } from './pipe.js';

/** The process's own streams and environment; output to a closed pipe is dropped quietly. */
export function processIo(): CliIo {
  // process.stderr is made when first used: most runs never write to it.
  const stderr = lazyGuardedWriter(() => process.stderr);
  return {
    // Written to descriptor 1 directly: process.stdout is built only if that fails.
    stdout: descriptorWriter(1, () => process.stdout, stderr),
    stderr,
    env: process.env,
    cwd: process.cwd(),
    get stderrIsTTY() {
      return process.stderr.isTTY === true;
    },
    // A getter: process.stdin builds a stream (a socket for a pipe) on first touch,
    // which only the commands that read stdin or prompt should pay for.
    get stdinIsTTY() {
      return process.stdin.isTTY === true;
    },
    readStdin: async () => (await import('./stdin.js')).readAllCapped(process.stdin),
    readSecret: async (prompt) =>
      (await import('./prompt.js')).readHiddenLine(process.stdin, stderr, prompt),
  };
}
