import type { CliIo } from './context.js';

/** Reports `done` of `total` units of work. */
export type ProgressFn = (done: number, total: number) => void;

const WIDTH = 30;
const MIN_INTERVAL_MS = 80;

/**
 * A progress bar on stderr for long runs — only when stderr is a terminal and
 * the output is not JSON; otherwise a no-op, so scripts and pipes stay quiet.
 * Returns the reporter and a `done()` that clears the line.
 */
export function progressBar(
  io: CliIo,
  label: string,
  enabled: boolean,
): { report: ProgressFn; done: () => void } {
  if (!enabled || io.stderrIsTTY !== true)
    return { report: () => undefined, done: () => undefined };
  let last = 0;
  let drawn = false;
  const report: ProgressFn = (done, total) => {
    const now = Date.now();
    if (done < total && now - last < MIN_INTERVAL_MS) return;
    last = now;
    const ratio = total === 0 ? 1 : Math.min(1, done / total);
    const filled = Math.round(ratio * WIDTH);
    io.stderr(`\r${label} [${'#'.repeat(filled)}${'.'.repeat(WIDTH - filled)}] ${done}/${total}`);
    drawn = true;
  };
  return {
    report,
    done: () => {
      if (drawn) io.stderr('\r\u001b[2K');
    },
  };
}
