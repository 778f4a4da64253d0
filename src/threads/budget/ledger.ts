import { RyeError } from '../../errors/index.js';
import { isNanos, type Nanos } from './money.js';

/**
 * The budget ledger's rows and its pure rules (THREADS.md §6). Both stores
 * apply exactly these rules inside one transaction each, so they cannot
 * disagree about a decision.
 */
export type AccountState = 'active' | 'closed';
export type AttemptState =
  'denied' | 'reserved' | 'issued' | 'settled' | 'released' | 'charged_max' | 'bound_violated';
export type ChargeBasis = 'provider_usage' | 'reserved_max';

export const ATTEMPT_STATES: readonly AttemptState[] = [
  'denied',
  'reserved',
  'issued',
  'settled',
  'released',
  'charged_max',
  'bound_violated',
];

/** One account per thread (`accountId` is the thread id); `limitNanos` null = unlimited. */
export interface Account {
  readonly accountId: string;
  readonly treeId: string;
  readonly threadId: string;
  readonly parentAccountId: string | null;
  readonly limitNanos: Nanos | null;
  readonly committedNanos: Nanos;
  readonly heldNanos: Nanos;
  readonly state: AccountState;
}

/** One provider request's reservation, keyed `thread:turn:attempt`. */
export interface Attempt {
  readonly attemptKey: string;
  readonly threadId: string;
  readonly requestSha256: string;
  readonly state: AttemptState;
  readonly reservedNanos: Nanos;
  /** What the attempt cost (the claim, for `bound_violated`); null until final. */
  readonly chargedNanos: Nanos | null;
  readonly basis: ChargeBasis | null;
  readonly reason: string | null;
  readonly createdMs: number;
  readonly settledMs: number | null;
}

/** What one attempt holds and commits on one account of its path. */
export interface Debit {
  readonly attemptKey: string;
  readonly accountId: string;
  readonly heldNanos: Nanos;
  readonly committedNanos: Nanos;
}

/** What an account can still reserve, `null` when unlimited. Pure. */
export function availableOf(account: Account): Nanos | null {
  return account.limitNanos === null
    ? null
    : account.limitNanos - account.committedNanos - account.heldNanos;
}

export type ReserveDecision =
  | { readonly granted: true }
  | {
      readonly granted: false;
      readonly accountId: string;
      readonly reason: 'insufficient' | 'closed';
      readonly availableNanos: Nanos | null;
    };

/**
 * Whether `worst` may be held on every account of `path` (the thread's account
 * first, then each ancestor): denied when any is closed, or when any finite
 * account has `limit − committed − held < worst`. Pure.
 */
export function decideReserve(path: readonly Account[], worst: Nanos): ReserveDecision {
  for (const account of path) {
    if (account.state !== 'active') {
      return {
        granted: false,
        accountId: account.accountId,
        reason: 'closed',
        availableNanos: availableOf(account),
      };
    }
  }
  for (const account of path) {
    const available = availableOf(account);
    if (available !== null && available < worst) {
      return {
        granted: false,
        accountId: account.accountId,
        reason: 'insufficient',
        availableNanos: available,
      };
    }
  }
  return { granted: true };
}

/** How an attempt ends: its state, what it costs, and what its accounts commit. */
export interface Finalization {
  readonly state: AttemptState;
  readonly chargedNanos: Nanos;
  /** Moved from held to committed on every account of the path (the rest is released). */
  readonly commitNanos: Nanos;
  readonly basis: ChargeBasis | null;
  readonly reason: string | null;
}

/**
 * Settle an issued attempt from the provider's reported cost:
 * - not a non-negative safe integer (missing or malformed usage) → `charged_max`,
 *   the full reservation committed;
 * - above the reservation → `bound_violated`: the reservation is committed (the
 *   most the ledger authorised; accounts never pass their limits), the claim is
 *   kept as `chargedNanos`, and the caller must stop the thread
 *   ({@link assertWithinBound});
 * - else `settled` at the reported cost, the rest released.
 * Pure.
 *
 * @throws RyeError BUDGET_ATTEMPT_INVALID unless the attempt is `issued`.
 */
export function decideSettle(attempt: Attempt, charge: unknown): Finalization {
  requireState(attempt, ['issued'], 'settle');
  const reserved = attempt.reservedNanos;
  if (!isNanos(charge)) {
    return {
      state: 'charged_max',
      chargedNanos: reserved,
      commitNanos: reserved,
      basis: 'reserved_max',
      reason: 'usage_missing_or_malformed',
    };
  }
  if (charge > reserved) {
    return {
      state: 'bound_violated',
      chargedNanos: charge,
      commitNanos: reserved,
      basis: 'provider_usage',
      reason: 'usage_above_reservation',
    };
  }
  return {
    state: 'settled',
    chargedNanos: charge,
    commitNanos: charge,
    basis: 'provider_usage',
    reason: null,
  };
}

/**
 * Release an attempt: never sent (`reserved`) → `released`, nothing committed;
 * already sent (`issued`) → `charged_max`, since the provider may bill a
 * request whose answer never arrived. Pure.
 *
 * @throws RyeError BUDGET_ATTEMPT_INVALID for an attempt already final.
 */
export function decideRelease(attempt: Attempt, why: string): Finalization {
  requireState(attempt, ['reserved', 'issued'], 'release');
  if (attempt.state === 'reserved') {
    return { state: 'released', chargedNanos: 0, commitNanos: 0, basis: null, reason: why };
  }
  return {
    state: 'charged_max',
    chargedNanos: attempt.reservedNanos,
    commitNanos: attempt.reservedNanos,
    basis: 'reserved_max',
    reason: `${why}_after_issue`,
  };
}

/**
 * Release an issued attempt the provider refused with an HTTP error status
 * (4xx/5xx) before any output: the answer was an error body, no model ran and
 * no token was generated, so nothing is charged (`released`, reason
 * `refused_http_<status>`). A connection that broke after the request left
 * (no status) or a stream that broke mid-way is not a refusal: release it
 * with {@link decideRelease}, which charges the reservation. Pure.
 *
 * @throws RyeError BUDGET_ATTEMPT_INVALID unless the attempt is `issued`, or
 *   when `status` is not an HTTP error status (400–599).
 */
export function decideRefused(attempt: Attempt, status: number): Finalization {
  requireState(attempt, ['issued'], 'release as refused');
  if (!Number.isInteger(status) || status < 400 || status > 599)
    throw new RyeError(
      'BUDGET_ATTEMPT_INVALID',
      `Cannot release attempt ${attempt.attemptKey} as refused: ${String(status)} is not an HTTP error status`,
      { attempt: attempt.attemptKey, status },
    );
  return {
    state: 'released',
    chargedNanos: 0,
    commitNanos: 0,
    basis: null,
    reason: `refused_http_${status}`,
  };
}

/**
 * Refuse a step the attempt's state does not allow.
 * @throws RyeError BUDGET_ATTEMPT_INVALID
 */
export function requireState(
  attempt: Attempt,
  allowed: readonly AttemptState[],
  step: string,
): void {
  if (allowed.includes(attempt.state)) return;
  throw new RyeError(
    'BUDGET_ATTEMPT_INVALID',
    `Cannot ${step} attempt ${attempt.attemptKey}: it is ${attempt.state}, not ${allowed.join(' or ')}`,
    { attempt: attempt.attemptKey, state: attempt.state, step },
  );
}

/**
 * Stop on a settled attempt whose usage exceeded its reservation.
 * @throws RyeError BUDGET_BOUND_VIOLATED
 */
export function assertWithinBound(result: {
  readonly attemptKey: string;
  readonly state: AttemptState;
  readonly reservedNanos: Nanos;
  readonly chargedNanos: Nanos | null;
}): void {
  if (result.state !== 'bound_violated') return;
  throw new RyeError(
    'BUDGET_BOUND_VIOLATED',
    `Cannot continue: the provider reported ${result.chargedNanos ?? '?'} nanos for attempt ${result.attemptKey}, above its reservation of ${result.reservedNanos}`,
    {
      attempt: result.attemptKey,
      reserved_nanos: result.reservedNanos,
      claimed_nanos: result.chargedNanos,
    },
  );
}

/**
 * Turn a refused reservation into an error, for callers that stop on it (the
 * loop ends the thread `budget_denied`).
 * @throws RyeError BUDGET_DENIED naming the account, its room and the worst case.
 */
export function assertGranted(
  result:
    | { readonly granted: true }
    | {
        readonly granted: false;
        readonly attemptKey: string;
        readonly worstNanos: Nanos;
        readonly accountId: string;
        readonly reason: 'insufficient' | 'closed';
        readonly availableNanos: Nanos | null;
      },
): void {
  if (result.granted) return;
  const why =
    result.reason === 'closed'
      ? `account ${result.accountId} is closed`
      : `account ${result.accountId} has ${result.availableNanos ?? 0} nanos left`;
  throw new RyeError(
    'BUDGET_DENIED',
    `Cannot send attempt ${result.attemptKey}: its worst case is ${result.worstNanos} nanos and ${why}`,
    {
      attempt: result.attemptKey,
      account: result.accountId,
      reason: result.reason,
      worst_nanos: result.worstNanos,
      available_nanos: result.availableNanos,
    },
  );
}

const ATTEMPT_KEY =
  /^([a-z0-9_]{1,40}-[0-9a-hjkmnp-tv-z]{26}):(0|[1-9][0-9]{0,8}):(0|[1-9][0-9]{0,8})$/;

/** The attempt key `thread:turn:attempt` of THREADS.md §6. Pure. */
export function attemptKeyOf(threadId: string, turn: number, attempt: number): string {
  return `${threadId}:${turn}:${attempt}`;
}

/**
 * Check an attempt key and that it belongs to `threadId`.
 * @throws RyeError BUDGET_ATTEMPT_INVALID
 */
export function requireAttemptKey(key: string, threadId: string): void {
  const match = ATTEMPT_KEY.exec(key);
  if (match !== null && match[1] === threadId) return;
  throw new RyeError(
    'BUDGET_ATTEMPT_INVALID',
    `Cannot use attempt key ${JSON.stringify(key.slice(0, 120))}: expected ${threadId}:<turn>:<attempt>`,
    { attempt: key.slice(0, 200), thread: threadId },
  );
}
