import type { CliIo } from './context.js';
import { descriptorWriter, drained, lazyGuardedWriter, type OutputStream } from './pipe.js';

/** The process's own streams and environment; output to a closed pipe is dropped quietly. */
export function processIo(): CliIo {
  // The streams built so far: only they can hold output back.
  const opened: OutputStream[] = [];
  const open = (stream: () => OutputStream) => (): OutputStream => {
    const made = stream();
    opened.push(made);
    return made;
  };
  // process.stderr is made when first used: most runs never write to it.
  const stderr = lazyGuardedWriter(open(() => process.stderr));
  return {
    // Written to descriptor 1 directly: process.stdout is built only if that fails.
    stdout: descriptorWriter(
      1,
      open(() => process.stdout),
      stderr,
    ),
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
    flushed: async () => {
      await Promise.all(opened.map(drained));
    },
  };
}
