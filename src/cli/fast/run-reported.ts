import type { CliIo, CommonOptions } from '../context.js';
import { createRunner } from '../runner.js';

/**
 * Run a command body as commander's action does (the same runner: an error is
 * reported in the command's output mode) and return the exit code.
 */
export async function runReported(
  io: CliIo,
  options: CommonOptions,
  body: () => Promise<number>,
): Promise<number> {
  let exitCode = 0;
  const run = createRunner(io, (code) => {
    exitCode = code;
  });
  await run(options, body);
  return exitCode;
}
