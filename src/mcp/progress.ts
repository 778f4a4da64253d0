/** One `notifications/progress` payload, without the token. */
export interface ProgressUpdate {
  /** Events seen so far: strictly increasing, as MCP requires. */
  readonly progress: number;
  readonly message: string;
}

export interface ProgressOptions {
  /** At most one notification per this many ms (default 50, THREADS.md §13). */
  readonly intervalMs?: number;
  /** ...unless this many events are waiting (default 64). */
  readonly maxEvents?: number;
  /** Monotonic ms (default `performance.now`). */
  readonly now?: () => number;
}

/**
 * Coalesces a stream of progress events into at most one notification per
 * interval or per `maxEvents` events, whichever comes first: the latest
 * message wins, the count says how many happened. `end()` sends what is
 * left, so the last event is never lost. Send failures are ignored (the
 * client may be gone; the call's answer reports the outcome).
 */
export class CoalescedProgress {
  readonly #send: (update: ProgressUpdate) => Promise<void>;
  readonly #intervalMs: number;
  readonly #maxEvents: number;
  readonly #now: () => number;
  #count = 0;
  #waiting = 0;
  #message = '';
  #lastSent = -Infinity;
  #timer: NodeJS.Timeout | undefined;
  #ended = false;

  constructor(send: (update: ProgressUpdate) => Promise<void>, options: ProgressOptions = {}) {
    this.#send = send;
    this.#intervalMs = options.intervalMs ?? 50;
    this.#maxEvents = options.maxEvents ?? 64;
    this.#now = options.now ?? (() => performance.now());
  }

  /** Record one event. */
  push(message: string): void {
    if (this.#ended) return;
    this.#count += 1;
    this.#waiting += 1;
    this.#message = message;
    const due = this.#lastSent + this.#intervalMs;
    if (this.#waiting >= this.#maxEvents || this.#now() >= due) {
      this.#flush();
      return;
    }
    this.#timer ??= setTimeout(() => this.#flush(), Math.max(0, due - this.#now()));
  }

  /** Send what is waiting and stop: later events are dropped. */
  end(): void {
    if (this.#ended) return;
    this.#flush();
    this.#ended = true;
  }

  #flush(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#waiting === 0) return;
    this.#waiting = 0;
    this.#lastSent = this.#now();
    this.#send({ progress: this.#count, message: this.#message }).catch(() => undefined);
  }
}
