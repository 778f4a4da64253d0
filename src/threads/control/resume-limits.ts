/**
 * A resumed thread's limits (docs/threads.md, "Raising a limit"): the pinned
 * directive's, narrowed by the record, then replaced by the last `limits_set`
 * event of the verified transcript, which only the operator writes
 * (`rye thread resume --limit k=v`, signed with the user key). The record
 * alone never lifts a limit.
 */
import { RyeError } from '../../errors/index.js';
import type { Signer } from '../../integrity/index.js';
import type { DirectiveLimits } from '../../items/index.js';
import { formatUsd, parseUsd, type BudgetStore } from '../budget/index.js';
import { setLimits, type ResolvedLimits } from '../directive/index.js';
import type { DirectivePlan } from '../admission/index.js';
import type { ThreadRecord } from '../store/index.js';
import {
  lastLimitsSet,
  signLimitsSet,
  type StoredEvent,
  type TranscriptWriter,
} from '../transcript/index.js';
import { pricingOf } from '../loop/admission-facts.js';

/**
 * The operator's limits to set, or undefined when none were given; refused
 * with `--rebase` before anything is read (a successor is admitted under its
 * own directive's limits).
 *
 * @throws RyeError USAGE_INVALID_ARGUMENT
 */
export function limitsToSet(input: {
  readonly threadId: string;
  readonly limits?: DirectiveLimits;
  readonly rebase?: boolean;
}): DirectiveLimits | undefined {
  if (input.limits === undefined || Object.keys(input.limits).length === 0) return undefined;
  if (input.rebase === true)
    throw new RyeError(
      'USAGE_INVALID_ARGUMENT',
      `--limit and --rebase cannot be given together: a successor is admitted under its new directive's limits; resume it with --limit afterwards. Nothing was run.`,
      { flags: ['--limit', '--rebase'], thread: input.threadId },
    );
  return input.limits;
}

/**
 * Refuse the operator's `--limit` before anything is written: no
 * `spend` on a child (it spends from its parent's account: raise the root);
 * a finite `spend` needs a priced model (BUDGET_UNPRICED_MODEL) and may not be
 * below what the thread's account committed and holds.
 *
 * @throws RyeError USAGE_INVALID_ARGUMENT, BUDGET_UNPRICED_MODEL
 */
export async function refuseLimitsSet(
  set: DirectiveLimits,
  context: {
    readonly record: ThreadRecord;
    readonly plan: DirectivePlan;
    readonly budget: BudgetStore;
  },
): Promise<void> {
  const thread = context.record.thread_id;
  if (set.spend === undefined) return;
  if (context.record.parent !== null)
    throw new RyeError(
      'USAGE_INVALID_ARGUMENT',
      `Cannot set spend on thread ${thread}: it is a child, and a child spends from its parent's budget; set spend on the root of its tree (${context.record.tree}). Nothing was run.`,
      { flag: '--limit', limit: 'spend', thread, root: context.record.tree },
    );
  pricingOf({ ...context.plan, limits: setLimits(context.plan.limits, { spend: set.spend }) });
  const own = (await context.budget.balances(thread))[0];
  const spent = own === undefined ? 0 : own.committedNanos + own.heldNanos;
  const wanted = parseUsd(set.spend, 'spend');
  if (wanted !== 0 && wanted < spent)
    throw new RyeError(
      'USAGE_INVALID_ARGUMENT',
      `Cannot set spend=${set.spend} on thread ${thread}: it has spent $${formatUsd(spent)} already. Nothing was run.`,
      { flag: '--limit', limit: 'spend', thread, spent_usd: formatUsd(spent) },
    );
}

/**
 * The limits the resumed thread runs under: `planned` (the pinned directive's
 * narrowed by the record) replaced by the last `limits_set` of the verified
 * `events` (whose signatures verifyTranscript checked under the user's own
 * key), then by the operator's `set`, recorded as a new signed `limits_set`.
 * A root's ledger account takes the spend limit, so it never allows more or
 * less than the transcript says (a crash between the two is healed by the
 * next resume).
 *
 * @throws RyeError BUDGET_AMOUNT_INVALID (a spend below what the ledger
 *   committed), TRANSCRIPT_INVALID and the write codes
 */
export async function applyLimits(
  planned: ResolvedLimits,
  events: readonly StoredEvent[],
  set: DirectiveLimits | undefined,
  context: {
    readonly record: ThreadRecord;
    readonly budget: BudgetStore;
    readonly writer: TranscriptWriter;
    readonly signer: Signer;
    readonly onProgress?: ((line: string) => void) | undefined;
  },
): Promise<ResolvedLimits> {
  const previous = (lastLimitsSet(events) as ResolvedLimits | null) ?? planned;
  const limits = set === undefined ? previous : setLimits(previous, set);
  const thread = context.record.thread_id;
  if (context.record.parent === null) {
    const spend = parseUsd(limits.spend, 'spend');
    await context.budget.setLimit(thread, spend === 0 ? null : spend);
  }
  if (set === undefined) return limits;
  const seq = (context.writer.head?.seq ?? -1) + 1;
  context.writer.append('limits_set', signLimitsSet(context.signer, thread, seq, limits, previous));
  const changed = Object.keys(set)
    .map((name) => `${name}=${String(limits[name as keyof ResolvedLimits])}`)
    .join(', ');
  context.onProgress?.(`limits: set ${changed} (signed limits_set at seq ${seq})`);
  return limits;
}
