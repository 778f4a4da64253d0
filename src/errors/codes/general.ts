import type { CodeTable } from './code-table.js';

/** General: malformed arguments and internal errors, which any domain raises. */
export const GENERAL_CODES = {
  USAGE_INVALID_ARGUMENT: {
    class: 'usage',
    hint: 'Check the command line; `rye <command> --help` lists the options.',
  },
  INTERNAL_ERROR: {
    class: 'failure',
    hint: 'This is a bug in rye; please report it with the command you ran.',
  },
} as const satisfies CodeTable;
