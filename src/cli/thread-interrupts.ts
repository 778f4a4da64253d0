/** A handle on SIGINT/SIGTERM while a thread runs in this process. */
export interface ThreadInterrupts {
  /** Aborted by the first signal: pass it as the thread's `signal`. */
  readonly signal: AbortSignal;
  /** The exit code a signal asks for (130 SIGINT, 143 SIGTERM), or undefined when none came. */
  exitCode(): number | undefined;
  /** Remove the handlers. */
  dispose(): void;
}

/**
 * While `rye execute directive` or `rye thread resume` runs a thread, the
 * first SIGINT or SIGTERM cancels it gracefully: the request in flight is
 * aborted, running tools get SIGTERM then SIGKILL after the grace, and the
 * thread ends `cancelled`, sealed, with its result printed (a thread killed
 * outright would be left `interrupted`, and its tools, in their own process
 * groups, out of reach of the terminal's Ctrl-C, would keep running). A
 * second signal ends rye at once, after killing the tools' process groups.
 */
export function threadInterrupts(
  killRunningTools: () => number,
  say: (line: string) => void,
): ThreadInterrupts {
  const controller = new AbortController();
  let received: NodeJS.Signals | undefined;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (received === undefined) {
      received = signal;
      say(`rye: ${signal}: cancelling the thread (send it again to stop at once)\n`);
      controller.abort(`interrupted by ${signal}`);
      return;
    }
    killRunningTools();
    process.exit(exitCodeOf(signal));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    signal: controller.signal,
    exitCode: () => (received === undefined ? undefined : exitCodeOf(received)),
    dispose: () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}

function exitCodeOf(signal: NodeJS.Signals): number {
  return signal === 'SIGINT' ? 130 : 143;
}
