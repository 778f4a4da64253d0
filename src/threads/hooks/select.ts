import type { AdmittedHook } from '../directive/index.js';
import type { HookEvent } from '../../items/index.js';

/** A limit's `when` name: `duration_seconds` → `duration_exceeded`, `turns` → `turns_exceeded`. */
export function whenOfLimit(limit: string): string {
  return `${limit === 'duration_seconds' ? 'duration' : limit}_exceeded`;
}

/**
 * The `when` values a `budget_denied` ending fires: always `budget_denied`,
 * and `spend_exceeded` as well when the refusing account is the thread's own
 * (its own spend limit, not an ancestor's, stopped it). Pure.
 */
export function budgetWhens(threadId: string, deniedAccount: unknown): string[] {
  return deniedAccount === threadId ? ['spend_exceeded', 'budget_denied'] : ['budget_denied'];
}

/**
 * The hooks of `event` in declaration order; a hook with a `when` fires only
 * when one of `whens` names it, a hook without one on every occurrence. Pure.
 */
export function hooksFor(
  hooks: readonly AdmittedHook[],
  event: HookEvent,
  whens: readonly string[] = [],
): AdmittedHook[] {
  return hooks.filter((h) => h.event === event && (h.when === undefined || whens.includes(h.when)));
}
