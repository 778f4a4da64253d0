import type { HookEvent, JsonValue } from '../../items/index.js';
import type { ErrorInfo } from '../transcript/index.js';

/**
 * A `<directive>` hook action to run as a lineage-linked child of its owner
 * (THREADS.md §12): edge `hook`, counted as a spawn, depth + 1, capabilities
 * = owner's ∩ the hook directive's, ledger account under the owner's. The
 * owner is the run the host was made for; nothing here carries authority.
 */
export interface HookDirectiveRequest {
  readonly directiveId: string;
  /** The hook's admitted inputs (plus `conversation` for a compaction hook). */
  readonly inputs: Readonly<Record<string, JsonValue>>;
  readonly edge: 'hook';
  readonly event: HookEvent;
  /** Aborted when the owner is cancelled: the child is cancelled with it. */
  readonly signal: AbortSignal;
}

/** How a hook child ended, as the host reports it (a subset of ThreadResult). */
export interface HookChildResult {
  readonly thread_id: string;
  readonly status: string;
  readonly outputs?: Readonly<Record<string, unknown>>;
  readonly summary?: string;
  readonly error?: ErrorInfo;
}

/**
 * The seam to child threads. The host runs the child to its end (mode
 * `wait`) and answers its result; it refuses a child its owner cannot have
 * by throwing a RyeError: THREAD_LIMIT_EXCEEDED (spawns, depth) or
 * BUDGET_DENIED, which the hook records as `skipped_limit`. A child that
 * started and then ended `budget_denied` is also `skipped_limit`.
 */
export interface HookHost {
  runDirective(request: HookDirectiveRequest): Promise<HookChildResult>;
}
