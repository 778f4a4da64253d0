export {
  NANOS_PER_USD,
  addNanos,
  formatUsd,
  isNanos,
  nanosFromBig,
  parseUsd,
  requireNanos,
} from './money.js';
export type { Nanos } from './money.js';
export { chargeForUsage, costOf, parsePricing, requirePricedForLimit } from './pricing.js';
export type { ModelPricing, PricingStrings } from './pricing.js';
export {
  OUTPUT_FLOOR_TOKENS,
  headroomOf,
  inputBoundTokens,
  inputRate,
  planOutputCap,
  worstCase,
} from './worst-case.js';
export type { InputBound, OutputCapPlan } from './worst-case.js';
export {
  ATTEMPT_STATES,
  assertGranted,
  assertWithinBound,
  attemptKeyOf,
  availableOf,
  decideRefused,
  decideRelease,
  decideReserve,
  decideSettle,
  requireAttemptKey,
} from './ledger.js';
export type {
  Account,
  AccountState,
  Attempt,
  AttemptState,
  ChargeBasis,
  Debit,
  Finalization,
  ReserveDecision,
} from './ledger.js';
export type {
  AccountBalance,
  BudgetStore,
  CloseResult,
  FinalizeResult,
  LedgerSnapshot,
  OpenAccountInput,
  RaiseResult,
  ReserveInput,
  ReserveResult,
  SetLimitResult,
} from './store.js';
export { memoryBudgetStore } from './memory-store.js';
export { openSqliteBudgetStore, sqliteBudgetStore } from './sqlite-store.js';
export { LEDGER_MIGRATIONS, configureConnection, migrateComponent } from './schema.js';
export type { Migration } from './schema.js';
