import type { OperationRunner } from './context.js';
import type * as Run from './run.js';

/**
 * `runOperation`, loaded on a tool's first nested call and kept: a command
 * that runs one tool (`rye execute tool`) never loads the four operations'
 * schemas, search and sign unless the tool calls back on its channel.
 */
export const runOperationLazily: OperationRunner = async (name, rawInput, ctx) => {
  runLoaded ??= import('./run.js');
  return (await runLoaded).runOperation(name, rawInput, ctx);
};

let runLoaded: Promise<typeof Run> | undefined;
