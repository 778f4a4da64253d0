import { writeSync } from 'node:fs';

/**
 * Output to a pipe whose reader may be gone (`rye … | head -1`). Node reports
 * a write to a closed pipe as an `error` event (EPIPE), which ends the process
 * with a stack trace when nobody listens. The CLI listens: once the reader is
 * gone, further output is dropped and the command finishes its work and exits
 * with its own code, quietly, like the Unix tools it sits between.
 */

/** What a writer needs from a stream (process.stdout, process.stderr, a test double). */
export interface OutputStream {
  write(text: string | Uint8Array, done?: (error?: Error | null) => void): unknown;
  on(event: 'error', listener: (error: NodeJS.ErrnoException) => void): unknown;
  readonly destroyed?: boolean;
  readonly writableEnded?: boolean;
  /** Bytes written and not yet handed to the system. */
  readonly writableLength?: number;
}

/** Errors that mean "nobody reads this stream any more". */
const CLOSED = new Set(['EPIPE', 'ERR_STREAM_DESTROYED', 'ERR_STREAM_WRITE_AFTER_END']);

/**
 * A writer that never throws and never crashes the process: after the stream
 * closes (EPIPE), writes are dropped. Any other write error is reported once
 * through `report` (e.g. on the other stream) and later writes are dropped.
 */
export function guardedWriter(
  stream: OutputStream,
  report: (message: string) => void = () => undefined,
): (text: string | Uint8Array) => void {
  let closed = false;
  stream.on('error', (error) => {
    if (!closed && !CLOSED.has(error.code ?? ''))
      report(`rye: cannot write output: ${error.message}\n`);
    closed = true;
  });
  return (text) => {
    if (closed || stream.destroyed === true || stream.writableEnded === true) return;
    try {
      stream.write(text);
    } catch {
      closed = true;
    }
  };
}

/**
 * {@link guardedWriter} over a stream made on the first write: process.stderr
 * is built on first touch (a stream object, ~2 ms at start-up), which a
 * command that never writes to it need not pay for.
 */
export function lazyGuardedWriter(
  open: () => OutputStream,
  report?: (message: string) => void,
): (text: string) => void {
  let write: ((text: string) => void) | undefined;
  return (text) => {
    write ??= guardedWriter(open(), report);
    write(text);
  };
}

/**
 * A writer straight to a file descriptor (`fs.writeSync`), with no stream
 * object: building process.stdout for a pipe loads the `net` module (~2 ms of
 * every command's start-up). Writes stay synchronous, as process.stdout's are
 * to files and pipes on POSIX. After EPIPE (the reader is gone) writes are
 * dropped, as {@link guardedWriter} does; a descriptor that would block
 * (EAGAIN: a pipe someone made non-blocking) or fails otherwise hands what is
 * left of that write and every later one to the stream `open` makes.
 */
export function descriptorWriter(
  fd: number,
  open: () => OutputStream,
  report?: (message: string) => void,
): (text: string) => void {
  let closed = false;
  let stream: ((text: string | Uint8Array) => void) | undefined;
  return (text) => {
    if (closed) return;
    if (stream !== undefined) {
      stream(text);
      return;
    }
    const bytes = Buffer.from(text, 'utf8');
    let at = 0;
    try {
      while (at < bytes.length) at += writeSync(fd, bytes, at);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EPIPE') {
        closed = true;
        return;
      }
      stream = guardedWriter(open(), report);
      stream(bytes.subarray(at));
    }
  };
}

/**
 * Resolves once `stream` holds nothing back: at once when its buffer is
 * empty (writes to files, terminals and, on Linux, pipes are synchronous),
 * otherwise when a last, empty write queued behind what it holds is done.
 * A stream that fails or is gone holds nothing either.
 */
export function drained(stream: OutputStream): Promise<void> {
  if (
    (stream.writableLength ?? 0) === 0 ||
    stream.destroyed === true ||
    stream.writableEnded === true
  )
    return Promise.resolve();
  return new Promise((resolve) => {
    stream.on('error', () => resolve());
    try {
      stream.write('', () => resolve());
    } catch {
      resolve();
    }
  });
}
