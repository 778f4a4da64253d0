/**
 * The runner's limits and deadline (THREADS.md §5): the checks before each
 * provider call, the absolute deadline (the thread's own `duration_seconds`,
 * never past an inherited one: a child never outlives its parent), the timer
 * that aborts the run when it passes, and the `duration_seconds` hit a
 * failure past it ends with.
 */
import { RyeError } from '../../errors/index.js';
import type { Clock } from '../../ids/index.js';
import type { ResolvedLimits } from '../directive/index.js';
import type { ThreadCost } from '../transcript/index.js';
import { limitBeforeCall, type LimitHit } from './limits-check.js';

/** One run's limits, measured from the moment it was constructed. */
export class RunLimits {
  /** When the run started (epoch ms): `duration_seconds` counts from here. */
  readonly startedMs: number;
  /** The absolute deadline in epoch ms; undefined when unlimited. */
  readonly deadline: number | undefined;
  /** The limits as resolved for this thread (`0`: unlimited). */
  readonly resolved: ResolvedLimits;
  readonly #clock: Clock;

  constructor(limits: ResolvedLimits, clock: Clock, inheritedDeadline: number | undefined) {
    this.resolved = limits;
    this.#clock = clock;
    this.startedMs = clock.now();
    const duration = limits.duration_seconds;
    const own = duration === 0 ? undefined : this.startedMs + duration * 1000;
    this.deadline =
      inheritedDeadline === undefined ? own : Math.min(own ?? inheritedDeadline, inheritedDeadline);
  }

  /** The limit a provider call would pass with these totals, or null (limitBeforeCall). */
  beforeCall(cost: ThreadCost): LimitHit | null {
    return limitBeforeCall(this.resolved, cost, this.startedMs, this.#clock.now());
  }

  deadlinePassed(): boolean {
    return this.deadline !== undefined && this.#clock.now() >= this.deadline;
  }

  /** The `duration_seconds` limit as it stands now. */
  durationHit(): LimitHit {
    return {
      limit: 'duration_seconds',
      current: Math.floor((this.#clock.now() - this.startedMs) / 1000),
      max: this.resolved.duration_seconds,
    };
  }

  /**
   * Abort `abort` with THREAD_LIMIT_EXCEEDED when the deadline passes (the
   * timer never keeps the process alive); returns the function that disarms it.
   */
  arm(abort: AbortController, threadId: string): () => void {
    if (this.deadline === undefined) return () => undefined;
    const timer = setTimeout(
      () => abort.abort(deadlineError(threadId)),
      this.deadline - this.startedMs,
    );
    timer.unref();
    return () => clearTimeout(timer);
  }
}

function deadlineError(threadId: string): RyeError {
  return new RyeError(
    'THREAD_LIMIT_EXCEEDED',
    `Cannot continue thread ${threadId}: its deadline passed`,
    { limit: 'duration_seconds' },
  );
}
