/**
 * SHA-256 of many bundle files at once (`rye bundle verify` of 10,000s): one
 * synchronous loop of open, fstat, read, close and hash per file, the digests
 * kept as the hex strings the manifest compares them with (a string costs
 * less than a digest Buffer and its backing store), and an unchanged bundle
 * judged by one pass over all its digests.
 *
 * A worker thread hashing half of the files was built and measured: on this
 * project's 2-vCPU machines two busy threads run at ~0.65× speed each, so the
 * worker's start and the contention cost more than it saved
 * (docs/performance.md).
 */
import { closeSync, fstatSync, openSync } from 'node:fs';
import { sha256Hex } from '../integrity/index.js';
import { MAX_ITEM_BYTES, readOpenFileSync } from '../platform/index.js';
import { READ_NO_FOLLOW } from './hash-files.js';

/** One file's outcome. `large`: over the item cap, not read (the caller streams it). */
export type DigestOutcome =
  | { readonly kind: 'digest'; readonly sha256: string; readonly size: number }
  | { readonly kind: 'large' }
  | {
      readonly kind: 'failed';
      /** The error's `code` (`ENOENT`, `ELOOP`…), null when it had none (not a regular file). */
      readonly errno: string | null;
      readonly message: string;
    };

/** What {@link digestFiles} found, file by file in input order. */
export interface Digests {
  /** How many files. */
  readonly length: number;
  /** Bytes read in all. */
  readonly bytes: number;
  /** File `i`'s outcome. */
  at(i: number): DigestOutcome;
  /**
   * True when every file was read and its SHA-256 is `expected[i]` (64
   * lowercase hex): one pass over the digests, so a bundle of unchanged files
   * needs no file-by-file record.
   */
  allEqual(expected: readonly string[]): boolean;
}

/** Files digested between two yields to the event loop (and progress reports). */
const BATCH = 256;

/**
 * Digest every file (absolute paths), in input order, opened as
 * `readDigest` opens them (no final link, no blocking FIFO), a regular
 * file only, read whole up to the item cap (a larger file is `large`, not
 * read: the caller streams it).
 * Yields to the event loop every {@link BATCH} files.
 */
export async function digestFiles(
  paths: readonly string[],
  onProgress?: (done: number, total: number, bytes: number) => void,
): Promise<Digests> {
  const n = paths.length;
  // Filled for every file read; a failed or large one leaves its slot empty.
  const digests = new Array<string>(n).fill('');
  const sizes = new Float64Array(n);
  const large = new Set<number>();
  const failures = new Map<number, { errno: string | null; message: string }>();
  let buffer = Buffer.allocUnsafe(64 * 1024);
  let bytes = 0;
  for (let i = 0; i < n; i += 1) {
    let fd = -1;
    try {
      fd = openSync(paths[i] as string, READ_NO_FOLLOW);
      const info = fstatSync(fd);
      if (!info.isFile()) throw new Error('not a regular file');
      if (info.size > MAX_ITEM_BYTES) large.add(i);
      else {
        if (buffer.length < info.size) buffer = Buffer.allocUnsafe(info.size);
        const read = readOpenFileSync(fd, info.size, buffer);
        digests[i] = sha256Hex(read);
        sizes[i] = read.length;
        bytes += read.length;
      }
    } catch (error) {
      // node:fs and the regular-file check throw Errors.
      const { code, message } = error as NodeJS.ErrnoException;
      failures.set(i, { errno: typeof code === 'string' ? code : null, message });
    } finally {
      if (fd !== -1) closeSync(fd);
    }
    if (i % BATCH === BATCH - 1) {
      onProgress?.(i + 1, n, bytes);
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }
  onProgress?.(n, n, bytes);
  return {
    length: n,
    bytes,
    at(i) {
      const failure = failures.get(i);
      if (failure !== undefined) return { kind: 'failed', ...failure };
      if (large.has(i)) return { kind: 'large' };
      return { kind: 'digest', sha256: digests[i] as string, size: sizes[i] as number };
    },
    allEqual(expected) {
      if (expected.length !== n || failures.size > 0 || large.size > 0) return false;
      // Plain comparisons: nothing here is secret (the manifest is public, and
      // anyone who can read a file can hash it), and a digest is only ever
      // equal to the 64 lowercase hex characters it is.
      for (let i = 0; i < n; i += 1) if (digests[i] !== expected[i]) return false;
      return true;
    },
  };
}
