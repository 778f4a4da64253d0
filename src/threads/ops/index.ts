export type { OperationContext } from './context.js';
export { executeTool } from './execute-tool.js';
export { THREAD_TOOL_PREFIX, executeThreadTool } from './execute-thread-tool.js';
export type { ExecuteToolOptions } from './execute-tool.js';
export { loadOperation } from './load.js';
export { parseOperationInput } from './parse-input.js';
export { planDirectiveOperation } from './plan-directive.js';
export type { DirectivePlan, PlanDirectiveOptions } from './plan-directive.js';
export { errorResult, runOperation } from './run.js';
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
