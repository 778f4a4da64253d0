import { Command } from 'commander';
import { withCommonOptions, type CliIo } from '../context.js';
import type { Runner } from '../runner.js';
import { verifyFileRun, type VerifyFileOptions } from './verify-file-run.js';

/** `rye verify-file <path> --item-type <type> [--trust <file-or-dir>]...`: the conformance verb. */
export function verifyFileCommand(io: CliIo, run: Runner): Command {
  return withCommonOptions(new Command('verify-file'))
    .description(
      'verify one file; with --trust, exactly those keys are trusted and no key store is read',
    )
    .argument('<path>', 'file to verify')
    .requiredOption('--item-type <type>', 'directive, tool or knowledge')
    .option(
      '--trust <file-or-dir>',
      'trusted key (TOML or PEM) or folder of them; repeatable',
      collect,
      [],
    )
    .option(
      '--item-id <id>',
      'the id the file is verified as: a trusted key with a scope verifies only items it covers',
    )
    .action((path: string, options: VerifyFileOptions) =>
      run(options, () => verifyFileRun(io, path, options)),
    );
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}
