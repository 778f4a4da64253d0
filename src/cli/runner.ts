import type { CliIo, CommonOptions } from './context.js';
import { reportError } from './report.js';

/** Runs a command body, reports any error in the command's output mode, records the exit code. */
export type Runner = (options: CommonOptions, body: () => Promise<number>) => Promise<void>;

/** The command being run (its words after `rye`) and its arguments, as the parser found them. */
export interface RunningCommand {
  readonly command: readonly string[];
  readonly args: readonly string[];
}

/**
 * A runner that, when the process holds a `RYE_CAP_TOKEN`, first holds the
 * running command to it (token-gate.ts), so no command body runs unchecked.
 */
export function createRunner(
  io: CliIo,
  setExitCode: (code: number) => void,
  running: () => RunningCommand | undefined = () => undefined,
): Runner {
  return async (options, body) => {
    try {
      const at = running();
      if (io.env['RYE_CAP_TOKEN'] !== undefined) {
        if (at === undefined) throw new Error('rye: internal error: a command ran unnamed');
        const { refuseUnderToken } = await import('./token-gate.js');
        await refuseUnderToken(io, at.command, at.args, options);
      }
      setExitCode(await body());
    } catch (error) {
      setExitCode(reportError({ json: options.json === true, io }, error));
    }
  };
}
