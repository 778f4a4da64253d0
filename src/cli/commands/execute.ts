import { Command, Option } from 'commander';
import { CAPS_OPTION_HELP } from '../authority.js';
import { withCommonOptions, type CliIo } from '../context.js';
import type { Runner } from '../runner.js';
import type { ExecuteOptions } from './execute-options.js';
import { executeRun } from './execute-run.js';

/**
 * `rye execute tool <item_id>`: run a tool through its verified chain.
 * `rye execute directive <item_id> --inputs … --plan`: the exact first request
 * a thread would send.
 */
export function executeCommand(io: CliIo, run: Runner): Command {
  return (
    withCommonOptions(new Command('execute'))
      .description(
        'verify a tool, its chain and its dependencies, then run it; or plan a directive as a thread',
      )
      .argument('<type>', 'tool or directive')
      .argument('<item>', 'item id, e.g. rye/core/bundler/bundler')
      .option('--params <json>', 'parameters as a JSON object')
      .option('--params-file <file>', 'read the parameters from a JSON file')
      .option('--dry-run', 'build, verify and plan without spawning anything')
      .option('--frozen', 'require a matching lockfile and never write one (also RYE_FROZEN=1)')
      .option(
        '--no-sandbox',
        'run tools without the bwrap sandbox (the operator only; every result says so; docs/sandbox.md)',
      )
      .option(
        '--explain-sandbox',
        'tools: print the effective permissions and the bwrap command line; run nothing',
      )
      .option('--caps <caps>', CAPS_OPTION_HELP)
      .option('--inputs <json>', 'directives: the inputs as a JSON object, or @file')
      .option(
        '--plan',
        'directives: print the exact first request a thread would send; call nothing',
      )
      .option(
        '--spawn',
        'directives: run the thread in a detached worker and print its id at once (it outlives this command)',
      )
      // The worker spawnRootThread starts: its job comes on stdin, its report goes to fd 3.
      .addOption(new Option('--detached-worker').hideHelp())
      .option(
        '--limit <k=v>',
        "directives: lower a limit (turns, tokens, spend, spawns, depth, duration_seconds, tool_calls); it never lifts the directive's",
        (value: string, previous: string[]) => [...previous, value],
        [] as string[],
      )
      .action((type: string, itemId: string, options: ExecuteOptions) =>
        run(options, () => executeRun(io, type, itemId, options)),
      )
  );
}
