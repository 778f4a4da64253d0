import { Command, CommanderError, Help } from 'commander';
import { escapeControlLines, rememberEnvSecrets } from '../platform/index.js';
import type { CliIo } from './context.js';
import type { LazyCommand } from './lazy-command.js';
import { errorDocument, formatJson } from './report.js';
import { createRunner } from './runner.js';

/** What the program is built from: see main.ts. */
export interface ProgramSpec {
  readonly version: string;
  readonly commands: readonly LazyCommand[];
}

/**
 * Parse `argv` with commander and run the command it names; returns the exit
 * code. Only the named command is loaded: the others are listed in help from
 * their `term` and `summary`, and commander's "did you mean" still knows them.
 */
export async function runProgram(
  argv: readonly string[],
  io: CliIo,
  spec: ProgramSpec,
): Promise<number> {
  // The values of your secret variables are redacted wherever anything shows them.
  rememberEnvSecrets(io.env);
  let exitCode = 0;
  // The command an action runs (set by the preAction hook below), held to a
  // RYE_CAP_TOKEN when the process has one (token-gate.ts). main.ts and
  // entry.ts leave the fast path under a token, so every command comes here.
  let running: { command: string[]; args: readonly string[] } | undefined;
  const run = createRunner(
    io,
    (code) => {
      exitCode = code;
    },
    async (options) => {
      if (io.env['RYE_CAP_TOKEN'] === undefined) return;
      if (running === undefined) throw new Error('rye: internal error: a command ran unnamed');
      const { refuseUnderToken } = await import('./token-gate.js');
      await refuseUnderToken(io, running.command, running.args, options);
    },
  );
  const program = new Command('rye')
    .description('Rye: signed items and verified execution for AI agents')
    .version(spec.version, '-V, --version')
    // Options after a subcommand belong to it: `rye bundle create x --version 1.0.0`
    // is the bundle's version, not rye's.
    .enablePositionalOptions()
    .addHelpText(
      'after',
      '\nExit codes: 0 success, 1 operation failed, 2 usage error, 3 verification or integrity refusal.\nEvery command takes --json.',
    );
  const named = namedCommand(argv);
  // A completion script is made from the whole command tree: load every command.
  const loadAll = named === 'completion';
  const terms = new Map<Command, string>();
  for (const entry of spec.commands) {
    const name = commandName(entry);
    if (loadAll || name === named) {
      program.addCommand((await entry.load())(io, run));
    } else {
      // Never run: a command line that names it loads the real one above. Were
      // commander ever to pick a stub anyway, it fails rather than do nothing.
      const stub = new Command(name).description(entry.summary).action(() => {
        throw new Error(`rye: internal error: ${name} ran without loading its module`);
      });
      terms.set(stub, entry.term);
      program.addCommand(stub);
    }
  }
  program.configureHelp({
    subcommandTerm(this: Help, cmd: Command): string {
      return terms.get(cmd) ?? Help.prototype.subcommandTerm.call(this, cmd);
    },
  });
  configureTree(program, io, argv.includes('--json'));
  // The command an action runs, for the runner's RYE_CAP_TOKEN check.
  program.hook('preAction', (_program, action) => {
    const command: string[] = [];
    for (let c: Command | null = action; c !== null && c !== program; c = c.parent)
      command.unshift(c.name());
    running = { command, args: action.args };
  });
  try {
    await program.parseAsync([...argv], { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) return usageExit(error, io, argv.includes('--json'));
    throw error;
  }
  return exitCode;
}

/** A command's name: the first word of its help term. */
export function commandName(entry: LazyCommand): string {
  return entry.term.split(' ', 1)[0] ?? entry.term;
}

/**
 * The top-level command the command line runs, as commander finds it: the
 * first word that is not an option (`rye` itself takes no option values), or
 * for `rye help <command>` the command after `help`.
 */
function namedCommand(argv: readonly string[]): string | undefined {
  const words = argv.filter((arg) => !arg.startsWith('-'));
  return words[0] === 'help' ? words[1] : words[0];
}

/** Commander reports usage errors by throwing (exitOverride) so the exit code stays ours. */
function configureTree(command: Command, io: CliIo, json: boolean): void {
  command.exitOverride();
  command.showHelpAfterError(false);
  // Usage errors quote argv, which a script may fill from file names: escaped
  // like any other output, keeping commander's own line breaks.
  command.configureOutput({
    writeOut: (text) => io.stdout(escapeControlLines(text)),
    writeErr: (text) => {
      if (!json) io.stderr(escapeControlLines(text));
    },
  });
  for (const sub of command.commands) configureTree(sub, io, json);
}

function usageExit(error: CommanderError, io: CliIo, json: boolean): number {
  const benign = ['commander.helpDisplayed', 'commander.version', 'commander.help'];
  if (benign.includes(error.code)) return 0;
  if (json) {
    io.stdout(
      formatJson(errorDocument('USAGE_INVALID_ARGUMENT', error.message.replace(/^error: /, ''))),
    );
  } else {
    io.stderr('hint: run `rye --help` or `rye <command> --help`\n');
  }
  return 2;
}
