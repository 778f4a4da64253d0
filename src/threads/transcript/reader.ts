import { readFileCappedSync } from '../../platform/index.js';

/** The largest transcript read whole (256 MiB; payloads over 512 KiB live in artifacts). */
export const MAX_TRANSCRIPT_BYTES = 256 * 1024 * 1024;

/** A transcript cut into lines: each complete line without its `\n`, and any torn tail. */
export interface TranscriptLines {
  readonly lines: readonly Buffer[];
  /** Bytes after the last `\n` (a write the process did not finish), or null. */
  readonly tornTail: Buffer | null;
  /** Length of the complete lines, `\n` included: where a repair truncates to. */
  readonly completeBytes: number;
}

/**
 * Read a transcript file whole, refusing it above `maxBytes` before reading.
 * @throws RyeError FILE_UNREADABLE, FILE_TOO_LARGE
 */
export function readTranscriptBytes(path: string, maxBytes = MAX_TRANSCRIPT_BYTES): Buffer {
  return readFileCappedSync(path, maxBytes);
}

/**
 * Split on `\n` (0x0A) only: U+2028, U+2029 and `\r` are data, never line
 * ends. Lines are views into `bytes`, not copies; nothing is decoded. Pure.
 */
export function splitLines(bytes: Buffer): TranscriptLines {
  const lines: Buffer[] = [];
  let start = 0;
  for (let end = bytes.indexOf(0x0a, start); end !== -1; end = bytes.indexOf(0x0a, start)) {
    lines.push(bytes.subarray(start, end));
    start = end + 1;
  }
  return {
    lines,
    tornTail: start < bytes.length ? bytes.subarray(start) : null,
    completeBytes: start,
  };
}
