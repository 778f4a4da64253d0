/**
 * SHA-256 of many bundle files on two threads: `rye bundle verify` of 10,000
 * small files spends most of its time in open/fstat/read/close and hashing,
 * work a second core halves. The calling thread and one worker claim files
 * from a shared counter, so neither waits while the other has work; both run
 * {@link digestClaimed}, one function, and write into shared arrays. Only
 * digests come back: every decision (a link on the way, a mismatch, a missing
 * file) stays with the caller. One core, or few files: the caller alone.
 */
import * as fs from 'node:fs';
import * as crypto from 'node:crypto';
import { timingSafeEqual } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { MAX_ITEM_BYTES } from '../platform/index.js';

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

/** Below this many files a worker costs more than it saves (it starts in ~25 ms). */
export const WORKER_MIN_FILES = 1000;

/** Files claimed at a time: large enough that the shared counter is not contended. */
const CHUNK = 32;

const LOWER_HEX_RE = /^[0-9a-f]*$/;

/** Status of each file in the shared table (0: not done yet). */
const DONE = 1;
const FAILED = 2;
const LARGE = 3;

/** What both threads share: the next file to claim, each file's status, size and digest. */
interface SharedTable {
  readonly next: Int32Array;
  readonly finished: Int32Array;
  /** Bytes read so far (for progress). */
  readonly bytes: BigInt64Array;
  readonly status: Int32Array;
  readonly sizes: Float64Array;
  readonly digests: Uint8Array;
}

/** Called for each file that fails: its index, the error's code and message. */
type OnFailure = (index: number, errno: string | null, message: string) => void;

/**
 * Claim files from the shared counter and digest each (O_NOFOLLOW, a regular
 * file only, read whole up to `maxBytes`) until none is left or `budget`
 * files were done; true when none is left. SELF-CONTAINED (no import, no
 * outer name): its source text is also what the worker runs.
 */
export function digestClaimed(
  nodeFs: typeof fs,
  sha256: (bytes: Uint8Array) => Uint8Array,
  paths: readonly string[],
  table: SharedTable,
  maxBytes: number,
  chunk: number,
  budget: number,
  onFailure: OnFailure,
): boolean {
  const flags =
    nodeFs.constants.O_RDONLY |
    (nodeFs.constants.O_NOFOLLOW ?? 0) |
    (nodeFs.constants.O_NONBLOCK ?? 0);
  let buffer = Buffer.allocUnsafe(64 * 1024);
  let done = 0;
  while (done < budget) {
    const start = Atomics.add(table.next, 0, chunk);
    if (start >= paths.length) return true;
    const end = Math.min(start + chunk, paths.length);
    let bytes = 0;
    for (let i = start; i < end; i += 1) {
      let fd = -1;
      try {
        fd = nodeFs.openSync(paths[i] as string, flags);
        const info = nodeFs.fstatSync(fd);
        if (!info.isFile()) throw new Error('not a regular file');
        table.sizes[i] = info.size;
        if (info.size > maxBytes) {
          table.status[i] = 3; // LARGE
        } else {
          if (buffer.length < info.size) buffer = Buffer.allocUnsafe(info.size);
          let read = 0;
          while (read < info.size) {
            const n = nodeFs.readSync(fd, buffer, read, info.size - read, read);
            if (n === 0) break;
            read += n;
          }
          table.sizes[i] = read;
          table.digests.set(sha256(buffer.subarray(0, read)), i * 32);
          bytes += read;
          table.status[i] = 1; // DONE
        }
      } catch (error) {
        table.status[i] = 2; // FAILED
        const code = (error as { code?: unknown }).code;
        onFailure(
          i,
          typeof code === 'string' ? code : null,
          error instanceof Error ? error.message : String(error),
        );
      } finally {
        if (fd !== -1) nodeFs.closeSync(fd);
      }
    }
    Atomics.add(table.bytes, 0, BigInt(bytes));
    Atomics.add(table.finished, 0, end - start);
    done += end - start;
  }
  return false;
}

/** The worker's program: {@link digestClaimed} over the table it is sent, once. */
const WORKER_SOURCE = `'use strict';
const { parentPort } = require('node:worker_threads');
const crypto = require('node:crypto');
const digestClaimed = ${digestClaimed.toString()};
const sha256 = typeof crypto.hash === 'function'
  ? (bytes) => crypto.hash('sha256', bytes, 'buffer')
  : (bytes) => crypto.createHash('sha256').update(bytes).digest();
parentPort.once('message', ({ paths, table, maxBytes, chunk }) => {
  digestClaimed(require('node:fs'), sha256, paths, table, maxBytes, chunk, Infinity,
    (index, errno, message) => parentPort.postMessage({ index, errno, message }));
  parentPort.postMessage('done');
});
`;

// crypto.hash (Node 20.12+) skips the Hash object: several times faster on small files.
const sha256Bytes: (bytes: Uint8Array) => Uint8Array =
  typeof crypto.hash === 'function'
    ? (bytes) => crypto.hash('sha256', bytes, 'buffer') as unknown as Uint8Array
    : (bytes) => crypto.createHash('sha256').update(bytes).digest();

/** Options of {@link digestFiles}. */
export interface DigestOptions {
  /** Called between batches: files finished so far, the total, and the bytes read so far. */
  readonly onProgress?: (finished: number, total: number, bytes: number) => void;
  /**
   * A worker from {@link startDigestWorker} to share the work with (it is
   * stopped when done), `auto` (default: one when there are 2+ cores and
   * {@link WORKER_MIN_FILES}+ files) or `never`.
   */
  readonly worker?: DigestWorker | 'auto' | 'never';
}

/**
 * Digest every file (absolute paths), in input order. Never follows a final
 * link; a file over the item cap is `large` (not read). Yields to the event
 * loop between batches.
 *
 * @throws Error when the worker dies (its files would be left unread).
 */
export async function digestFiles(
  paths: readonly string[],
  options: DigestOptions = {},
): Promise<Digests> {
  const n = paths.length;
  const table: SharedTable = {
    next: new Int32Array(new SharedArrayBuffer(4)),
    finished: new Int32Array(new SharedArrayBuffer(4)),
    bytes: new BigInt64Array(new SharedArrayBuffer(8)),
    status: new Int32Array(new SharedArrayBuffer(4 * n)),
    sizes: new Float64Array(new SharedArrayBuffer(8 * n)),
    digests: new Uint8Array(new SharedArrayBuffer(32 * n)),
  };
  const failures = new Map<number, { errno: string | null; message: string }>();
  const onFailure: OnFailure = (index, errno, message) => failures.set(index, { errno, message });
  const given = options.worker ?? 'auto';
  const helper =
    typeof given === 'object'
      ? given
      : given === 'auto' && workerPays(n)
        ? startDigestWorker()
        : undefined;
  try {
    const finished = helper?.run(paths, table, onFailure);
    const bytes = (): number => Number(Atomics.load(table.bytes, 0));
    const batch = CHUNK * 8;
    while (!digestClaimed(fs, sha256Bytes, paths, table, MAX_ITEM_BYTES, CHUNK, batch, onFailure)) {
      options.onProgress?.(Atomics.load(table.finished, 0), n, bytes());
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    await finished;
    options.onProgress?.(n, n, bytes());
  } finally {
    await helper?.stop();
  }
  return digestsOf(table, failures, n);
}

/** What {@link digestFiles} found, file by file in input order. */
export interface Digests {
  /** How many files. */
  readonly length: number;
  /** Bytes read in all. */
  readonly bytes: number;
  /** File `i`'s outcome. */
  at(i: number): DigestOutcome;
  /**
   * True when every file was read and its SHA-256 is `expected[i]` (64 hex):
   * one constant-time comparison over all of them, where a bundle of
   * unchanged files needs no file-by-file one.
   */
  allEqual(expected: readonly string[]): boolean;
}

function digestsOf(
  table: SharedTable,
  failures: ReadonlyMap<number, { errno: string | null; message: string }>,
  n: number,
): Digests {
  const digests = Buffer.from(table.digests.buffer);
  return {
    length: n,
    bytes: Number(Atomics.load(table.bytes, 0)),
    at(i) {
      const status = table.status[i];
      if (status === DONE) {
        return {
          kind: 'digest',
          sha256: digests.toString('hex', i * 32, i * 32 + 32),
          size: table.sizes[i] as number,
        };
      }
      if (status === LARGE) return { kind: 'large' };
      const failure = failures.get(i);
      // Not done here would mean a thread stopped without reporting: never a digest.
      return {
        kind: 'failed',
        errno: failure?.errno ?? null,
        message: failure?.message ?? (status === FAILED ? 'failed' : 'not read'),
      };
    },
    allEqual(expected) {
      if (expected.length !== n || !table.status.every((status) => status === DONE)) return false;
      // As exact as comparing the hex: lowercase only, and text that is not
      // 64 digits each decodes short (Buffer stops at a bad digit).
      const hex = expected.join('');
      if (!LOWER_HEX_RE.test(hex)) return false;
      const want = Buffer.from(hex, 'hex');
      return want.length === digests.length && timingSafeEqual(want, digests);
    },
  };
}

/** Whether a worker is worth starting for `files` files on this machine. */
export function workerPays(files: number): boolean {
  return files >= WORKER_MIN_FILES && availableParallelism() > 1;
}

/** A worker thread that digests files alongside the caller, once. */
export interface DigestWorker {
  /**
   * Start claiming from `table`; settles when no file is left (every failure
   * it saw reported first) and rejects if the worker dies.
   */
  run(paths: readonly string[], table: SharedTable, onFailure: OnFailure): Promise<void>;
  /** Stop it (at once; idempotent). */
  stop(): Promise<void>;
}

/**
 * Start a digest worker now, so that it is ready by the time the files are
 * known (it takes ~25 ms to start, on another core). It reads nothing until
 * {@link digestFiles} hands it files (and stops it); whoever starts one
 * must stop it if they never come: until then it keeps the process alive.
 */
export function startDigestWorker(): DigestWorker {
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    // Nothing of the parent's environment or arguments is needed.
    env: {},
    argv: [],
    execArgv: [],
    stdout: false,
    stderr: false,
  });
  const exited = new Promise<number>((resolve) => worker.once('exit', resolve));
  const died = new Promise<never>((_resolve, reject) => {
    worker.once('error', reject);
    void exited.then((code) => reject(new Error(`the digest worker exited (${code})`)));
  });
  died.catch(() => undefined);
  return {
    run(paths, table, onFailure) {
      const done = new Promise<void>((resolve) => {
        worker.on('message', (message: unknown) => {
          if (message === 'done') resolve();
          else {
            const failure = message as { index: number; errno: string | null; message: string };
            onFailure(failure.index, failure.errno, failure.message);
          }
        });
      });
      worker.postMessage({ paths, table, maxBytes: MAX_ITEM_BYTES, chunk: CHUNK });
      return Promise.race([done, died]);
    },
    async stop() {
      await worker.terminate();
    },
  };
}
