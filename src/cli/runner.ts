import type { CliIo, CommonOptions } from './context.js';
import { reportError } from './report.js';

/** Runs a command body, reports any error in the command's output mode, records the exit code. */
export type Runner = (options: CommonOptions, body: () => Promise<number>) => Promise<void>;

/**
 * A runner; `before`, when given, runs first and may refuse the command (the
 * program's RYE_CAP_TOKEN check, program.ts), its error reported as the body's.
 */
export function createRunner(
  io: CliIo,
  setExitCode: (code: number) => void,
  before?: (options: CommonOptions) => Promise<void>,
): Runner {
  return async (options, body) => {
    try {
      await before?.(options);
      setExitCode(await body());
    } catch (error) {
      setExitCode(reportError({ json: options.json === true, io }, error));
    }
  };
}
