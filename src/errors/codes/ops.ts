import type { CodeTable } from './code-table.js';

/** Operations: the four operations and the thread runner they call. */
export const OPERATION_CODES = {
  OPERATION_INPUT_INVALID: {
    class: 'usage',
    hint: "The call does not match the operation's schema (details.issues lists each problem); unknown keys are refused.",
  },
  // An operation context without the thread runner (ops' port) executed a directive.
  THREAD_RUNNER_UNAVAILABLE: {
    class: 'failure',
    hint: 'This operation context has no thread runner: a library caller of runOperation sets `threads: THREADS_PORT` (from the threads entry) to run directives and thread tools; `rye` and `rye mcp serve` always do.',
  },
} as const satisfies CodeTable;
