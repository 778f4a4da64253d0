import { RyeError } from '../../errors/index.js';
import { parseItemType } from '../../items/index.js';
import { contextOf, type CliIo } from '../context.js';
import { refuseFlagsOutside, type FlagConflict, type ScopedFlag } from '../flag-scope.js';
import { planCommand } from './execute-directive.js';
import type { ExecuteOptions } from './execute-options.js';
import { executeToolRun } from './execute-tool-command.js';

/**
 * What `rye execute <type> <item>` does once its command line is parsed: apart
 * from the commander definition so that the argument fast path
 * (../fast-path.ts) runs the same body without loading commander.
 */
export async function executeRun(
  io: CliIo,
  type: string,
  itemId: string,
  options: ExecuteOptions,
): Promise<number> {
  const itemType = parseItemType(type);
  if (itemType !== 'tool' && itemType !== 'directive') {
    throw new RyeError(
      'USAGE_INVALID_ARGUMENT',
      `Cannot execute ${type}: only tools and directives run (knowledge is loaded)`,
      { type },
    );
  }
  refuseFlagsOutside('rye execute', itemType, options, EXECUTE_FLAGS, EXECUTE_CONFLICTS);
  const ctx = contextOf(options, io);
  if (itemType === 'directive') {
    // --dry-run on a directive is its plan: it never runs the thread.
    return planCommand(ctx, itemId, {
      ...options,
      plan: options.plan === true || options.dryRun === true,
    });
  }
  return executeToolRun(ctx, itemId, options);
}

/**
 * Which of `rye execute`'s options belong to which item type. Every option
 * of the command is listed (test/cli/flag-scope.test.ts checks this against
 * the commander definition); `--json`, `--project`, `--caps`, `--dry-run`
 * and `--no-sandbox` apply to both.
 */
export const EXECUTE_FLAGS: readonly ScopedFlag[] = [
  { flag: '--params', modes: ['tool'], instead: { directive: 'pass --inputs' } },
  { flag: '--params-file', modes: ['tool'], instead: { directive: 'pass --inputs @file' } },
  {
    flag: '--frozen',
    modes: ['tool'],
    instead: {
      directive: 'RYE_FROZEN=1 in the environment holds every tool the thread runs to its lockfile',
    },
  },
  {
    flag: '--explain-sandbox',
    modes: ['tool'],
    instead: { directive: '--plan lists the effective sandbox of every tool the thread may run' },
  },
  { flag: '--inputs', modes: ['directive'], instead: { tool: 'pass --params' } },
  {
    flag: '--plan',
    modes: ['directive'],
    instead: { tool: '--dry-run builds and verifies without spawning' },
  },
  { flag: '--spawn', modes: ['directive'] },
  { flag: '--detached-worker', modes: ['directive'] },
  { flag: '--limit', modes: ['directive'] },
  { flag: '--dry-run', modes: ['tool', 'directive'] },
  { flag: '--caps', modes: ['tool', 'directive'] },
  { flag: '--no-sandbox', modes: ['tool', 'directive'] },
  { flag: '--json', modes: ['tool', 'directive'] },
  { flag: '--project', modes: ['tool', 'directive'] },
];

const EXECUTE_CONFLICTS: readonly FlagConflict[] = [
  { flags: ['--plan', '--spawn'], why: '--plan calls nothing, --spawn runs the thread' },
  { flags: ['--dry-run', '--spawn'], why: '--dry-run calls nothing, --spawn runs the thread' },
];
