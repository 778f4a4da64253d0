import type { CliIo, CommonOptions } from '../context.js';
import { createRunner, type RunningCommand } from '../runner.js';

/**
 * Run a command body as commander's action does (the same runner: an error is
 * reported in the command's output mode, the command held to a RYE_CAP_TOKEN
 * when there is one) and return the exit code.
 */
export async function runReported(
  io: CliIo,
  running: RunningCommand,
  options: CommonOptions,
  body: () => Promise<number>,
): Promise<number> {
  let exitCode = 0;
  const run = createRunner(
    io,
    (code) => {
      exitCode = code;
    },
    () => running,
  );
  await run(options, body);
  return exitCode;
}
