export { planThread } from './plan-thread.js';
export type { AdmittedDirective, PlanInput, ThreadPlan } from './plan-thread.js';
export { worstCaseOf } from './worst-case-plan.js';
export type { ModelForPlan, WorstCase } from './worst-case-plan.js';
export { planDirectiveOperation } from './plan-directive.js';
export type { DirectivePlan, PlanDirectiveOptions } from './plan-directive.js';
export { THREAD_TOOL_IDS } from './thread-tool-ids.js';
export type { ThreadToolId } from './thread-tool-ids.js';
