export { planThread } from './plan-thread.js';
export type { AdmittedDirective, PlanInput, ThreadPlan } from './plan-thread.js';
export { worstCaseOf } from './worst-case-plan.js';
export type { ModelForPlan, WorstCase } from './worst-case-plan.js';
