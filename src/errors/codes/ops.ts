import type { CodeTable } from './code-table.js';

/** Operations: the four operations and the thread runner they call. */
export const OPERATION_CODES = {
  OPERATION_INPUT_INVALID: {
    class: 'usage',
    hint: "The call does not match the operation's schema (details.issues lists each problem); unknown keys are refused.",
  },
  // The runner ops calls to run a directive as a thread; no code path raises it
  // any more (kept, as every code is).
  THREAD_RUNNER_UNAVAILABLE: {
    class: 'failure',
    hint: 'Directives do not run as threads in this release yet; `--plan` shows the exact request a thread would send.',
  },
} as const satisfies CodeTable;
