import type { Command } from 'commander';
import { resolveSpaces, type Spaces } from '../items/index.js';

/** Options every command accepts. */
export interface CommonOptions {
  readonly json?: boolean;
  readonly project?: string;
}

/** What a command needs from its surroundings; tests may pass their own streams and env. */
export interface CliIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
  /** All of standard input (capped); absent when the caller has none to give. */
  readonly readStdin?: () => Promise<string>;
  /** True when standard input is a terminal (nothing is piped in). */
  readonly stdinIsTTY?: boolean;
  /** True when stderr is a terminal (progress bars are drawn only then). */
  readonly stderrIsTTY?: boolean;
}

/** The resolved context of one command run. */
export interface CommandContext {
  readonly json: boolean;
  readonly spaces: Spaces;
  readonly io: CliIo;
}

/** Add `--json` and `--project DIR` to a command. */
export function withCommonOptions(command: Command): Command {
  return command
    .option('--json', 'print one JSON document on stdout')
    .option('--project <dir>', 'project folder (default: the working directory)');
}

export function contextOf(options: CommonOptions, io: CliIo): CommandContext {
  return {
    json: options.json === true,
    spaces: resolveSpaces({ project: options.project, env: io.env, cwd: io.cwd }),
    io,
  };
}
