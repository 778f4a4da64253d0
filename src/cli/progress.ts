import type { CliIo } from './context.js';

/** Reports `done` of `total` files, and optionally the bytes done (of a total, when known). */
export type ProgressFn = (
  done: number,
  total: number,
  bytes?: number,
  bytesTotal?: number | null,
) => void;

/** A progress bar on stderr: `report` draws, `phase` starts a new labelled bar, `done` clears. */
export interface ProgressBar {
  readonly report: ProgressFn;
  readonly phase: (label: string) => void;
  readonly done: () => void;
}

const WIDTH = 30;
const MIN_INTERVAL_MS = 80;

/**
 * A progress bar on stderr for long runs — only when stderr is a terminal and
 * the output is not JSON; otherwise every call is a no-op, so scripts and
 * pipes stay quiet. Shows files, and bytes when given; the bar follows the
 * bytes when their total is known, else the files. Redraws at most every
 * 80 ms, but always draws the last step. `done()` clears the line.
 */
export function progressBar(io: CliIo, label: string, enabled: boolean): ProgressBar {
  if (!enabled || io.stderrIsTTY !== true)
    return { report: () => undefined, phase: () => undefined, done: () => undefined };
  let current = label;
  let last = 0;
  let drawn = false;
  const report: ProgressFn = (done, total, bytes, bytesTotal) => {
    const now = Date.now();
    if (done < total && now - last < MIN_INTERVAL_MS) return;
    last = now;
    io.stderr(`\r\u001b[2K${formatProgress(current, done, total, bytes, bytesTotal)}`);
    drawn = true;
  };
  return {
    report,
    phase: (next) => {
      current = next;
      last = 0;
    },
    done: () => {
      if (drawn) io.stderr('\r\u001b[2K');
    },
  };
}

/**
 * One progress line, e.g. `uploading [#####.........] 12/40 files, 3.1 MB/12.0 MB`.
 * Pure.
 */
export function formatProgress(
  label: string,
  done: number,
  total: number,
  bytes?: number,
  bytesTotal?: number | null,
): string {
  const byBytes = bytes !== undefined && bytesTotal !== undefined && bytesTotal !== null;
  const ratio = byBytes
    ? bytesTotal === 0
      ? 1
      : bytes / bytesTotal
    : total === 0
      ? 1
      : done / total;
  const filled = Math.round(Math.min(1, Math.max(0, ratio)) * WIDTH);
  const files = `${done}/${total}${bytes === undefined ? '' : ' files'}`;
  const size =
    bytes === undefined
      ? ''
      : `, ${formatBytes(bytes)}${byBytes ? `/${formatBytes(bytesTotal)}` : ''}`;
  return `${label} [${'#'.repeat(filled)}${'.'.repeat(WIDTH - filled)}] ${files}${size}`;
}

/** Bytes for people: `812 B`, `3.1 kB`, `12.0 MB`, `1.2 GB` (powers of 1000). */
export function formatBytes(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  const units = ['kB', 'MB', 'GB', 'TB'];
  let value = bytes / 1000;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit += 1;
  }
  return `${value.toFixed(1)} ${units[unit] ?? 'TB'}`;
}
