import type { Command } from 'commander';
import type { CliIo } from './context.js';
import type { Runner } from './runner.js';

/** Builds one top-level command with its options, subcommands and actions. */
export type CommandFactory = (io: CliIo, run: Runner) => Command;

/**
 * A top-level command whose module is imported only when the command line
 * names it, so `rye --version` and `rye --help` load almost nothing and each
 * command loads only its own code. `term` and `summary` are what `rye --help`
 * lists; test/cli/lazy-commands.test.ts checks they match the real command.
 */
export interface LazyCommand {
  /** The help listing's left column: name, `[options]` when it has any, its arguments. */
  readonly term: string;
  /** The command's description, as the listing shows it. */
  readonly summary: string;
  readonly load: () => Promise<CommandFactory>;
}
