export { admitHooks, admittedHookRecord } from './admit-hooks.js';
export type { AdmittedHook } from './admit-hooks.js';
export { resolveInputs } from './resolve-inputs.js';
export type { InputValues } from './resolve-inputs.js';
export { Interpolator, interpolate, interpolateProgram, renderValue } from './interpolate.js';
export {
  DEFAULT_LIMITS,
  clampLimits,
  isUnlimited,
  parseLimitOverrides,
  resolveLimits,
  setLimits,
} from './resolve-limits.js';
export type { ResolvedLimits } from './resolve-limits.js';
export { renderSummary, returnSchemaOf, validateReturn } from './validate-return.js';
export type { Outcome, ReturnField, ReturnSchema, SummaryValues } from './validate-return.js';
