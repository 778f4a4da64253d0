export {
  DEFAULT_PRESSURE_RATIO,
  HOOK_EVENTS,
  LIMIT_MAXIMA,
  LIMIT_NAMES,
  LIMIT_WHEN,
  PERMISSION_TYPES,
  PERMISSION_VERBS,
  RESULT_MODES,
  RUNTIME_PLACEHOLDERS,
  SPEND_MAX_USD,
  VALUE_TYPES,
  limitAlias,
  limitNameOf,
} from './grammar.js';
export type { HookEvent, LimitName, ResultMode, ValueType } from './grammar.js';
export { idTemplateProblem } from './id-template.js';
export { parseLimitValue, spendNanos } from './limits.js';
export type { LimitValue } from './limits.js';
export { forEachToken, malformedSample, replaceTokens } from './placeholders.js';
export type { Token } from './placeholders.js';
export { parseDirectiveProgram } from './parse.js';
export type { ProgramReading } from './program.js';
export type {
  DirectiveHook,
  DirectiveInputDecl,
  DirectiveLimits,
  DirectiveModel,
  DirectiveOutputDecl,
  DirectiveOutputs,
  DirectivePermissionList,
  DirectiveSandbox,
  DirectiveProgram,
  DirectiveStep,
  JsonValue,
  PermissionEntry,
  StepAction,
} from './types.js';
export { describe as describeValue, isPlainObject, valueTypeProblem } from './value-type.js';
