/**
 * The runner's provider phase, one failed attempt: what an issued request
 * that failed is charged.
 */
import { isRyeError } from '../../errors/index.js';
import type { BudgetStore, FinalizeResult } from '../budget/index.js';

/**
 * The HTTP status of a provider refusal that came before any output: an
 * error status (4xx/5xx) answered instead of a stream. The adapters set
 * `details.status` only for such answers; a broken connection, a timeout, an
 * abort or an error inside a started stream carries none. Pure.
 */
export function refusedStatusOf(error: unknown): number | undefined {
  if (!isRyeError(error) || !error.code.startsWith('PROVIDER_')) return undefined;
  const status = error.details['status'];
  return typeof status === 'number' && Number.isInteger(status) && status >= 400 && status <= 599
    ? status
    : undefined;
}

/**
 * End an issued attempt whose request failed (docs/threads.md "Charging failed
 * requests"): refused with an HTTP error status before any output, no token
 * was generated and it is released uncharged; any other failure after the
 * request left (a reset, a stream broken mid-way, a cancel) may have been
 * billed, so it keeps its whole reservation (`charged_max`).
 */
export function endFailedAttempt(
  budget: BudgetStore,
  attemptKey: string,
  error: unknown,
): Promise<FinalizeResult> {
  const status = refusedStatusOf(error);
  if (status !== undefined) return budget.refuse(attemptKey, status);
  return budget.release(attemptKey, isRyeError(error) ? error.code : 'error');
}
