export { admitHooks, admittedHookRecord } from './hooks.js';
export type { AdmittedHook } from './hooks.js';
export { resolveInputs } from './inputs.js';
export type { InputValues } from './inputs.js';
export { Interpolator, interpolate, interpolateProgram, renderValue } from './interpolate.js';
export {
  DEFAULT_LIMITS,
  clampLimits,
  isUnlimited,
  parseLimitOverrides,
  resolveLimits,
  setLimits,
} from './limits.js';
export type { ResolvedLimits } from './limits.js';
export { renderSummary, returnSchemaOf, validateReturn } from './outputs.js';
export type { Outcome, ReturnField, ReturnSchema, SummaryValues } from './outputs.js';
