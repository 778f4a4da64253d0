// `rye execute tool` on the fast path (../fast-path.ts): the CLI bundle builds
// this module with what it imports, apart from the other commands' chunks.
// The fast path takes `execute tool` only, so this is executeRun's tool
// branch (commands/execute-run.ts) without the directive planning: the same
// context, then the same function.
import { contextOf } from '../context.js';
import type { ExecuteOptions } from '../commands/execute-options.js';
import { executeToolRun } from '../commands/execute-tool-command.js';
import type { FastRunner } from '../fast-path.js';
// The entry (../entry.ts) runs this module with the process's own streams.
export { processIo } from '../process-io.js';
import { runReported } from './run-reported.js';

export const run: FastRunner = (io, [, itemId], options) =>
  runReported(io, options, () =>
    // --limit (a directive's) is not on the fast path: commander's default for it.
    executeToolRun(contextOf(options, io), itemId ?? '', {
      limit: [],
      ...options,
    } as ExecuteOptions),
  );
