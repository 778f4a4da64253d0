import { homedir } from 'node:os';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import {
  assertProjectFolder,
  discoverProject,
  resolveSpaces,
  type Spaces,
} from '../items/index.js';

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
  /**
   * Ask for a secret on the terminal without echoing it (the prompt goes to
   * stderr); absent when there is no terminal to ask on.
   */
  readonly readSecret?: (prompt: string) => Promise<string>;
  /**
   * Resolves once everything written so far has left the process (a stream
   * to a pipe may still hold some on platforms where its writes are
   * asynchronous); absent when writes are never held back.
   */
  readonly flushed?: () => Promise<void>;
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
    .option(
      '--project <dir>',
      'project folder (default: the nearest folder with .ai/ from the working directory up)',
    );
}

/**
 * The context of a command: `--project` must name an existing folder; without
 * it the project is discovered upward from the working directory
 * (`discoverProject`: stops at the home folder, the user space and the root).
 *
 * @throws RyeError PROJECT_NOT_FOUND
 */
export function contextOf(options: CommonOptions, io: CliIo): CommandContext {
  return { json: options.json === true, spaces: spacesOf(options.project, io), io };
}

/** The spaces for a `--project` value (checked) or the discovered project. */
export function spacesOf(project: string | undefined, io: CliIo): Spaces {
  const spaces = resolveSpaces({ project, env: io.env, cwd: io.cwd });
  if (project !== undefined) {
    assertProjectFolder(spaces.project);
    return spaces;
  }
  const found = discoverProject(io.cwd, [homedir(), spaces.user]);
  return { ...spaces, project: resolve(found.path) };
}
