import { randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  fstatSync,
  openSync,
  readFileSync,
  readSync,
  statSync,
  type Stats,
} from 'node:fs';
import { chmod, mkdir, open, readFile, rename, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { RyeError } from '../errors/index.js';

/** Largest item file read (8 MiB): items are text a human reviews, not data sets. */
export const MAX_ITEM_BYTES = 8 * 1024 * 1024;

/**
 * Read a file of at most `maxBytes`.
 * @throws RyeError FILE_UNREADABLE, FILE_TOO_LARGE
 */
export async function readFileCapped(
  path: string,
  maxBytes: number = MAX_ITEM_BYTES,
): Promise<Buffer> {
  let info: Stats;
  try {
    info = await stat(path);
  } catch (error) {
    throw unreadable(path, error);
  }
  checkCappedFile(path, info, maxBytes);
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (error) {
    throw unreadable(path, error);
  }
  return checkCappedBytes(path, bytes, maxBytes);
}

/**
 * {@link readFileCapped} done synchronously, step for step (stat, then read),
 * so it refuses the same files with the same errors: for the few small files
 * a `rye execute` reads before its spawn (trusted keys, the lockfile), where
 * each thread-pool trip of the async version costs more than the read.
 * @throws RyeError FILE_UNREADABLE, FILE_TOO_LARGE
 */
export function readFileCappedStatSync(path: string, maxBytes: number = MAX_ITEM_BYTES): Buffer {
  let info: Stats;
  try {
    info = statSync(path);
  } catch (error) {
    throw unreadable(path, error);
  }
  checkCappedFile(path, info, maxBytes);
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    throw unreadable(path, error);
  }
  return checkCappedBytes(path, bytes, maxBytes);
}

/** The checks after the stat: a regular file, within the cap. */
function checkCappedFile(path: string, info: Stats, maxBytes: number): void {
  if (!info.isFile()) throw unreadable(path, new Error('not a regular file'));
  if (info.size > maxBytes) {
    throw new RyeError(
      'FILE_TOO_LARGE',
      `Cannot read ${path}: ${info.size} bytes is over the cap of ${maxBytes}`,
      { path, size: info.size, maxBytes },
    );
  }
}

/** The check after the read: it did not grow past the cap in between. */
function checkCappedBytes(path: string, bytes: Buffer, maxBytes: number): Buffer {
  if (bytes.length <= maxBytes) return bytes;
  throw new RyeError(
    'FILE_TOO_LARGE',
    `Cannot read ${path}: it grew over the cap of ${maxBytes} bytes`,
    { path, maxBytes },
  );
}

/**
 * Read a regular file once, synchronously, capped at `maxBytes` — for walks
 * over many small files, where an async call per file costs more than the read.
 * Opened non-blocking, so a FIFO cannot stall it.
 * @throws RyeError FILE_UNREADABLE, FILE_TOO_LARGE
 */
export function readFileCappedSync(path: string, maxBytes: number = MAX_ITEM_BYTES): Buffer {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    throw unreadable(path, error);
  }
  try {
    const info = fstatSync(fd);
    checkCappedFile(path, info, maxBytes);
    return readOpenFileSync(fd, info.size);
  } catch (error) {
    throw error instanceof RyeError ? error : unreadable(path, error);
  } finally {
    closeSync(fd);
  }
}

/**
 * Read `size` bytes of an open file from offset 0 (fewer if it shrank
 * meanwhile), into `into` when given (at least `size` bytes long).
 */
export function readOpenFileSync(fd: number, size: number, into?: Buffer): Buffer {
  const bytes = into ?? Buffer.allocUnsafe(size);
  let read = 0;
  while (read < size) {
    const n = readSync(fd, bytes, read, size - read, read);
    if (n === 0) break;
    read += n;
  }
  return bytes.subarray(0, read);
}

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Decode item bytes as strict UTF-8 text. A NUL byte or an invalid sequence
 * means binary content, which cannot carry an inline signature.
 * @throws RyeError FILE_BINARY
 */
export function decodeText(bytes: Uint8Array, path: string): string {
  if (bytes.includes(0)) {
    throw new RyeError('FILE_BINARY', `Cannot read ${path} as text: it contains NUL bytes`, {
      path,
    });
  }
  try {
    return decoder.decode(bytes);
  } catch (error) {
    throw new RyeError(
      'FILE_BINARY',
      `Cannot read ${path} as text: it is not valid UTF-8`,
      { path },
      { cause: error },
    );
  }
}

/**
 * Read an item file as text synchronously (capped, strict UTF-8): for the
 * executor's hot path, where each async call costs a thread-pool round trip
 * worth more than the read itself.
 * @throws RyeError FILE_UNREADABLE, FILE_TOO_LARGE, FILE_BINARY
 */
export function readTextFileSync(path: string, maxBytes: number = MAX_ITEM_BYTES): string {
  return decodeText(readFileCappedSync(path, maxBytes), path);
}

/** Read an item file as text (capped, strict UTF-8). */
export async function readTextFile(
  path: string,
  maxBytes: number = MAX_ITEM_BYTES,
): Promise<string> {
  return decodeText(await readFileCapped(path, maxBytes), path);
}

/**
 * Write a file atomically: temp file in the same folder, fsync, rename. A
 * failure leaves the old file as it was.
 * @throws RyeError FILE_WRITE_FAILED
 */
export async function writeFileAtomic(
  path: string,
  data: string | Uint8Array,
  options: { mode?: number; dirMode?: number } = {},
): Promise<void> {
  const dir = dirname(path);
  const temp = join(dir, `.${randomBytes(6).toString('hex')}.tmp`);
  try {
    await mkdir(dir, {
      recursive: true,
      ...(options.dirMode === undefined ? {} : { mode: options.dirMode }),
    });
    const handle = await open(temp, 'wx', options.mode ?? 0o644);
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    if (options.mode !== undefined) await chmod(temp, options.mode);
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true }).catch(() => undefined);
    throw new RyeError(
      'FILE_WRITE_FAILED',
      `Cannot write ${path}: ${messageOf(error)}`,
      { path },
      { cause: error },
    );
  }
}

/** True when the path exists (any kind). */
export async function pathExists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

/** The FILE_UNREADABLE error for a failed read of `path`. */
export function unreadable(path: string, error: unknown): RyeError {
  return new RyeError(
    'FILE_UNREADABLE',
    `Cannot read ${path}: ${messageOf(error)}`,
    { path },
    { cause: error },
  );
}

/** The message of an unknown thrown value. */
export function messageOf(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === undefined ? error.message : `${code} (${error.message})`;
  }
  return String(error);
}
