// `rye execute tool` on the fast path (../fast-path.ts): the CLI bundle builds
// this module with what it imports, apart from the other commands' chunks.
import { executeRun, type ExecuteOptions } from '../commands/execute-run.js';
import type { FastRunner } from '../fast-path.js';
import { runReported } from './run-reported.js';

export const runExecute: FastRunner = (io, [type, itemId], options) =>
  // --limit (a directive's) is not on the fast path: commander's default for it.
  runReported(io, options, () =>
    executeRun(io, type ?? '', itemId ?? '', { limit: [], ...options } as ExecuteOptions),
  );
