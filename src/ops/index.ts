/**
 * The operations entry (`rye-ts/ops`, docs/library.md, docs/operations.md):
 * execute, search, load and sign as one library call, and the authorities
 * they run under. It is also the domain's door for the layers above (threads,
 * mcp, cli), which call the operations one by one. It loads zod (the input
 * schemas); a directive runs only with `threads: THREADS_PORT` from
 * `rye-ts/threads` in the context.
 */

// The four operations as one call, their context, and the result an error becomes.
export { runOperation } from './run.js';
export { runOperationLazily } from './run-lazily.js';
export { errorResult } from './error-result.js';
export type {
  OperationContext,
  OperationRunner,
  ThreadToolHandler,
  ThreadsPort,
} from './context.js';

// Authorities: the operator's (everything), narrowed by a capability set (docs/capabilities.md).
export {
  compileCaps,
  narrowAuthority,
  operatorAuthority,
  parseCapsOption,
} from '../capabilities/index.js';
export type { Authority, CapSet } from '../capabilities/index.js';

// Each operation on its own, as the thread runner, MCP and the CLI call them.
export { executeTool } from './execute-tool.js';
export type { ExecuteToolOptions } from './execute-tool.js';
export { THREAD_TOOL_PREFIX, executeThreadTool } from './execute-thread-tool.js';
export { loadOperation } from './load.js';
export { denyUnder, searchOperation } from './search.js';
export { signOperation } from './sign.js';
export type { SignReport, SignRequest } from './sign.js';

// The input and result schemas (zod 4), strict: what models, MCP clients and --json see.
export { parseOperationInput } from './parse-input.js';
export {
  OPERATION_SCHEMAS,
  errorSchema,
  executeInputSchema,
  itemTypeSchema,
  loadInputSchema,
  operationResultSchema,
  searchInputSchema,
  signInputSchema,
  spaceSchema,
} from './schemas.js';
export type {
  ExecuteInput,
  LoadInput,
  OperationName,
  OperationResult,
  SearchInput,
  SignInput,
} from './schemas.js';
