export type {
  OperationContext,
  OperationRunner,
  ThreadToolHandler,
  ThreadsPort,
} from './context.js';
export { executeTool } from './execute-tool.js';
export { THREAD_TOOL_PREFIX, executeThreadTool } from './execute-thread-tool.js';
export type { ExecuteToolOptions } from './execute-tool.js';
export { loadOperation } from './load.js';
export { parseOperationInput } from './parse-input.js';
export { errorResult } from './error-result.js';
export { runOperation } from './run.js';
export { runOperationLazily } from './run-lazily.js';
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
export { denyUnder, searchOperation } from './search.js';
export { signOperation } from './sign.js';
export type { SignReport, SignRequest } from './sign.js';
