import type { CliIo, CommonOptions } from './context.js';
import { reportError } from './report.js';

/** Runs a command body, reports any error in the command's output mode, records the exit code. */
export type Runner = (options: CommonOptions, body: () => Promise<number>) => Promise<void>;

export function createRunner(io: CliIo, setExitCode: (code: number) => void): Runner {
  return async (options, body) => {
    try {
      setExitCode(await body());
    } catch (error) {
      setExitCode(reportError({ json: options.json === true, io }, error));
    }
  };
}
