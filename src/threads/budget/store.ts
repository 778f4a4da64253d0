import type { Account, Attempt, AttemptState, ChargeBasis, Debit } from './ledger.js';
import type { Nanos } from './money.js';

/** A new account for a thread, under its parent's (null for a root). */
export interface OpenAccountInput {
  readonly threadId: string;
  readonly treeId: string;
  readonly parentThreadId: string | null;
  /** The thread's `spend` limit in nanos; null = unlimited (`spend: 0`). */
  readonly limitNanos: Nanos | null;
}

/** One provider request about to be sent. */
export interface ReserveInput {
  /** `thread:turn:attempt` ({@link attemptKeyOf}); unique forever. */
  readonly attemptKey: string;
  readonly threadId: string;
  /** Hex SHA-256 of the request body, tying the attempt to what was sent. */
  readonly requestSha256: string;
  /** The worst case ({@link worstCase} or {@link planOutputCap}). */
  readonly worstNanos: Nanos;
}

export type ReserveResult =
  | {
      readonly granted: true;
      readonly attemptKey: string;
      readonly worstNanos: Nanos;
      /** Every account held on: the thread's first, then each ancestor. */
      readonly accounts: readonly string[];
    }
  | {
      readonly granted: false;
      readonly attemptKey: string;
      readonly worstNanos: Nanos;
      /** The account that refused. */
      readonly accountId: string;
      readonly reason: 'insufficient' | 'closed';
      readonly availableNanos: Nanos | null;
    };

/** How an attempt ended (settle, release or close). */
export interface FinalizeResult {
  readonly attemptKey: string;
  readonly threadId: string;
  readonly state: AttemptState;
  readonly reservedNanos: Nanos;
  readonly chargedNanos: Nanos | null;
  /** What each account of the path committed. */
  readonly committedNanos: Nanos;
  readonly basis: ChargeBasis | null;
  readonly reason: string | null;
  readonly accounts: readonly string[];
}

export interface CloseResult {
  /** The accounts closed: the thread's and every still-active descendant's. */
  readonly closed: readonly string[];
  /** Their open attempts, ended: `released` if unsent, `charged_max` if sent. */
  readonly finalized: readonly FinalizeResult[];
}

/** What {@link BudgetStore.raiseCommitted} found and left. */
export interface RaiseResult {
  readonly accountId: string;
  /** The committed spend before the call. */
  readonly beforeNanos: Nanos;
  /** The committed spend after it: never below `beforeNanos`. */
  readonly committedNanos: Nanos;
  readonly raised: boolean;
}

/** What {@link BudgetStore.setLimit} found and left. */
export interface SetLimitResult {
  readonly accountId: string;
  /** The limit before the call (null = unlimited). */
  readonly beforeNanos: Nanos | null;
  /** The limit now. */
  readonly limitNanos: Nanos | null;
  readonly changed: boolean;
}

/** An account with what it can still reserve (null = unlimited). */
export interface AccountBalance extends Account {
  readonly availableNanos: Nanos | null;
}

/** Every row of one tree, for audits and the property tests. */
export interface LedgerSnapshot {
  readonly accounts: readonly Account[];
  readonly attempts: readonly Attempt[];
  readonly debits: readonly Debit[];
}

/**
 * The budget ledger (THREADS.md §6). Every mutation is one atomic transaction
 * over the thread's account and all its ancestors; implementations apply the
 * shared rules of `ledger.ts` through `ledger-ops.ts`. Promise-based so a
 * PostgreSQL store can follow.
 */
export interface BudgetStore {
  /** @throws RyeError BUDGET_ACCOUNT_INVALID (exists, parent missing, closed or in another tree). */
  openAccount(input: OpenAccountInput): Promise<AccountBalance>;
  /**
   * Hold `worstNanos` on the thread's account and every ancestor's, or record a
   * `denied` attempt and hold nothing.
   * @throws RyeError BUDGET_ACCOUNT_INVALID, BUDGET_ATTEMPT_INVALID (key reused or malformed),
   *   BUDGET_AMOUNT_INVALID.
   */
  reserve(input: ReserveInput): Promise<ReserveResult>;
  /** The request is about to leave: from now on releasing it charges its maximum. */
  markIssued(attemptKey: string): Promise<void>;
  /**
   * Settle an issued attempt from the reported cost (`null` when usage was
   * missing or malformed). A `bound_violated` result is returned, not thrown:
   * call `assertWithinBound`.
   * @throws RyeError BUDGET_ATTEMPT_INVALID
   */
  settle(attemptKey: string, chargeNanos: Nanos | null): Promise<FinalizeResult>;
  /** End an attempt without usage: `released` if unsent, `charged_max` if issued. */
  release(attemptKey: string, reason?: string): Promise<FinalizeResult>;
  /**
   * End an issued attempt the provider refused with an HTTP error status
   * before any output: `released`, nothing charged (reason `refused_http_<status>`).
   * @throws RyeError BUDGET_ATTEMPT_INVALID
   */
  refuse(attemptKey: string, status: number): Promise<FinalizeResult>;
  /** Close the thread's account and its active descendants', ending their open attempts. */
  close(threadId: string): Promise<CloseResult>;
  /**
   * Raise the account's committed spend to `nanos` when it is lower; never
   * lowers it. A finite account is raised at most to `limit − held`. Used to
   * repair the ledger from the signed transcripts (reconcileLedger).
   * @throws RyeError BUDGET_ACCOUNT_INVALID, BUDGET_AMOUNT_INVALID
   */
  raiseCommitted(accountId: string, nanos: Nanos): Promise<RaiseResult>;
  /**
   * Set an account's spend limit (null = unlimited), higher or lower, never
   * below what it committed and holds; those stay. The operator's
   * `rye thread resume --limit spend=…`, which a signed `limits_set` event records.
   * @throws RyeError BUDGET_ACCOUNT_INVALID (unknown, or closed),
   *   BUDGET_AMOUNT_INVALID (not nanos, or below committed + held)
   */
  setLimit(accountId: string, limitNanos: Nanos | null): Promise<SetLimitResult>;
  /** The thread's account, then each ancestor's, up to the root. */
  balances(threadId: string): Promise<readonly AccountBalance[]>;
  /** Every row of a tree. */
  snapshot(treeId: string): Promise<LedgerSnapshot>;
  /** Release the store's resources (the database handle). */
  dispose(): void;
}
