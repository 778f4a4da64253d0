/**
 * Requests being handled. A handler keeps running after its client hangs up,
 * so a graceful stop waits for this count, not only for the sockets, before
 * it closes the store under them.
 */
export class InFlight {
  private count = 0;
  private waiters: (() => void)[] = [];

  /** Run `handle`, counted while it runs. */
  async track<T>(handle: () => T | Promise<T>): Promise<T> {
    this.count += 1;
    try {
      return await handle();
    } finally {
      this.count -= 1;
      if (this.count === 0) for (const wake of this.waiters.splice(0)) wake();
    }
  }

  /** Resolve when nothing is in flight, or after `timeoutMs` whatever the count. */
  idle(timeoutMs: number): Promise<void> {
    if (this.count === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      this.waiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}
