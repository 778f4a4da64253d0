import { Command } from 'commander';
import { withCommonOptions, type CliIo } from '../context.js';
import type { Runner } from '../runner.js';
import { verifyRun, type VerifyOptions } from './verify-run.js';

/** `rye verify <type> <item_id-or-glob>`: verify items where they resolve. */
export function verifyCommand(io: CliIo, run: Runner): Command {
  return withCommonOptions(new Command('verify'))
    .description('verify items where they resolve (project → user → system)')
    .argument('<type>', 'directive, tool or knowledge')
    .argument('<item>', 'item id or glob (apps/x/*, apps/x/**)')
    .option('--require-full-coverage', 'refuse directives signed over the <directive> span only')
    .action((type: string, pattern: string, options: VerifyOptions) =>
      run(options, () => verifyRun(io, type, pattern, options)),
    );
}
