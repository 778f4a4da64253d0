import { Command, CommanderError } from 'commander';
import { escapeControlLines } from '../platform/index.js';
import { bundleCommand } from './commands/bundle.js';
import { cacheCommand } from './commands/cache.js';
import { dotenvCommand } from './commands/dotenv.js';
import { executeCommand } from './commands/execute.js';
import { keysCommand } from './commands/keys.js';
import { listCommand } from './commands/list.js';
import { loadCommand } from './commands/load.js';
import { lockCommand } from './commands/lock.js';
import { mcpCommand } from './commands/mcp.js';
import { registryCommand } from './commands/registry.js';
import { searchCommand } from './commands/search.js';
import { signCommand } from './commands/sign.js';
import { trustCommand } from './commands/trust.js';
import { verifyFileCommand } from './commands/verify-file.js';
import { verifyCommand } from './commands/verify.js';
import type { CliIo } from './context.js';
import { errorDocument, formatJson } from './report.js';
import { createRunner } from './runner.js';
import { readAllCapped } from './stdin.js';

const VERSION = '0.1.0';

/** The process's own streams and environment. */
export function processIo(): CliIo {
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    env: process.env,
    cwd: process.cwd(),
    stderrIsTTY: process.stderr.isTTY === true,
    stdinIsTTY: process.stdin.isTTY === true,
    readStdin: () => readAllCapped(process.stdin),
  };
}

/**
 * Run the `rye` CLI and return its exit code: 0 success, 1 operation failed,
 * 2 usage error, 3 verification or integrity refusal.
 */
export async function main(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  let exitCode = 0;
  const run = createRunner(io, (code) => {
    exitCode = code;
  });
  const program = new Command('rye')
    .description('Rye: signed items and verified execution for AI agents')
    .version(VERSION, '-V, --version')
    // Options after a subcommand belong to it: `rye bundle create x --version 1.0.0`
    // is the bundle's version, not rye's.
    .enablePositionalOptions()
    .addHelpText(
      'after',
      '\nExit codes: 0 success, 1 operation failed, 2 usage error, 3 verification or integrity refusal.\nEvery command takes --json.',
    );
  for (const command of [
    keysCommand(io, run),
    trustCommand(io, run),
    signCommand(io, run),
    dotenvCommand(io, run),
    verifyCommand(io, run),
    verifyFileCommand(io, run),
    executeCommand(io, run),
    lockCommand(io, run),
    bundleCommand(io, run),
    cacheCommand(io, run),
    registryCommand(io, run),
    searchCommand(io, run),
    loadCommand(io, run),
    listCommand(io, run),
    mcpCommand(io, run),
  ]) {
    program.addCommand(command);
  }
  configureTree(program, io, argv.includes('--json'));
  try {
    await program.parseAsync([...argv], { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) return usageExit(error, io, argv.includes('--json'));
    throw error;
  }
  return exitCode;
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
