export type { OperationContext } from './context.js';
export { errorResult, runOperation } from './run.js';
export { loadOperation } from './load.js';
export { planDirectiveOperation } from './plan-directive.js';
export type { DirectivePlan, PlanDirectiveOptions } from './plan-directive.js';
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
export type { SignReport, SignRequest } from './sign.js';
