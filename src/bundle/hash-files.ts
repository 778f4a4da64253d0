/**
 * SHA-256 of many bundle files, fast: synchronous reads of item-sized files,
 * streams beyond, links never followed, and whether each file carries an inline signature line.
 */
import { closeSync, constants, fstatSync, openSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { ITEM_EXTENSIONS, ITEM_FOLDERS, ITEM_TYPES, type ItemType } from '../items/index.js';
import {
  locateCommentSignature,
  normalizeNewlines,
  readJsonSignature,
  sha256Hasher,
  sha256Hex,
  signatureFormatFor,
  type SignatureFormat,
} from '../integrity/index.js';
import { RyeError } from '../errors/index.js';
import { MAX_ITEM_BYTES, decodeText, readOpenFileSync } from '../platform/index.js';
import type { CollectedFile } from './collect.js';

/** A collected file with its digest. */
export interface HashedFile extends CollectedFile {
  /** SHA-256 of the raw bytes, 64 lowercase hex. */
  readonly sha256: string;
  readonly size: number;
  readonly inlineSigned: boolean;
  /**
   * The bytes hashed, kept only for inline-signed files when asked
   * (`keepSignedBytes`), so their signature is checked on exactly those bytes.
   */
  readonly signedBytes?: Buffer;
}

/** Called after each file: files done so far, the total, and the bytes read so far. */
export type ProgressFn = (done: number, total: number, bytes?: number) => void;

/**
 * How bundle files are opened for hashing: never through a final link
 * (ELOOP), and a FIFO cannot block the read (O_NONBLOCK).
 */
// A flag the platform lacks (Windows: both) is undefined, which `|` reads as 0.
export const READ_NO_FOLLOW = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** Files read at once: enough to keep the thread pool and the disk busy. */
export const READ_CONCURRENCY = 32;
/** Larger files are streamed (and are never items: items are capped at this size). */
const STREAM_OVER_BYTES = MAX_ITEM_BYTES;
const STREAM_CHUNK = 1024 * 1024;
/**
 * Read one file without following a final link; `bytes` is null when it was
 * streamed, or when the caller did not keep them (`keepBytes: false`).
 */
export interface ReadDigest {
  readonly sha256: string;
  readonly size: number;
  readonly bytes: Buffer | null;
}

/** Read options: `keepBytes: false` hashes from a reused buffer and returns no bytes. */
export interface ReadDigestOptions {
  readonly keepBytes?: boolean;
}

/**
 * Hash one file's raw bytes: read whole (synchronously, see {@link hashFiles})
 * up to the item cap, streamed beyond it. O_NOFOLLOW: a file swapped for a
 * link after the walk fails to open instead of being followed.
 *
 * @throws RyeError FILE_UNREADABLE (details.errno: `ENOENT` when it is gone).
 */
export async function readDigest(
  absolutePath: string,
  options: ReadDigestOptions = {},
): Promise<ReadDigest> {
  return (
    readDigestSync(absolutePath, options.keepBytes !== false) ?? (await streamDigest(absolutePath))
  );
}

async function streamDigest(absolutePath: string): Promise<ReadDigest> {
  let handle;
  try {
    handle = await open(absolutePath, READ_NO_FOLLOW);
  } catch (error) {
    throw withErrno(absolutePath, error);
  }
  try {
    // Defensive: readDigestSync saw a regular file; only a swap between the two opens gets here.
    /* v8 ignore if */
    if (!(await handle.stat()).isFile()) throw new Error('not a regular file');
    const hash = sha256Hasher();
    let size = 0;
    for await (const chunk of handle.createReadStream({
      autoClose: false,
      highWaterMark: STREAM_CHUNK,
    })) {
      hash.update(chunk as Buffer);
      size += (chunk as Buffer).length;
    }
    return { sha256: hash.hex(), size, bytes: null };
  } catch (error) {
    throw withErrno(absolutePath, error);
  } finally {
    await handle.close();
  }
}

/**
 * Hash every file (raw bytes) with bounded concurrency, in input order.
 * `options.keepSignedBytes` keeps the bytes of inline-signed files (items are
 * capped in size) in `signedBytes`.
 *
 * @throws RyeError FILE_UNREADABLE for a file that cannot be read.
 */
export async function hashFiles(
  files: readonly CollectedFile[],
  onProgress?: ProgressFn,
  options: { readonly keepSignedBytes?: boolean } = {},
): Promise<HashedFile[]> {
  // Synchronous reads of small files are several times faster than one async
  // read each through the thread pool (10,000 × 10 KiB: ~0.2 s against ~1.4 s);
  // the loop yields to the event loop between batches so it never starves it.
  const out: HashedFile[] = [];
  let bytes = 0;
  for (let i = 0; i < files.length; i += 1) {
    const file = files[i] as CollectedFile;
    const read = await readDigest(file.absolutePath);
    const inlineSigned = read.bytes !== null && hasInlineSignature(file.path, read.bytes);
    out.push({
      ...file,
      sha256: read.sha256,
      size: read.size,
      inlineSigned,
      ...(inlineSigned && options.keepSignedBytes === true && read.bytes !== null
        ? { signedBytes: read.bytes }
        : {}),
    });
    bytes += read.size;
    onProgress?.(i + 1, files.length, bytes);
    if (i % SYNC_BATCH === SYNC_BATCH - 1)
      await new Promise<void>((resolve) => setImmediate(resolve));
  }
  return out;
}

/** The reused read buffer of {@link readDigestSync} (grows to the largest file read whole). */
let scratch = Buffer.alloc(0);

/** Files hashed between two yields to the event loop. */
const SYNC_BATCH = 256;

/**
 * {@link readDigest} for a file small enough to read in one go, synchronously;
 * undefined when it is larger (the caller streams it instead).
 *
 * @throws RyeError FILE_UNREADABLE
 */
function readDigestSync(absolutePath: string, keepBytes = true): ReadDigest | undefined {
  let fd: number;
  try {
    fd = openSync(absolutePath, READ_NO_FOLLOW);
  } catch (error) {
    throw withErrno(absolutePath, error);
  }
  try {
    const info = fstatSync(fd);
    if (!info.isFile()) throw new Error('not a regular file');
    if (info.size > STREAM_OVER_BYTES) return undefined;
    if (!keepBytes) {
      // One buffer for every file whose bytes are not kept: 10,000 reads make
      // no garbage. Read and hashed in this synchronous call, never shared.
      if (scratch.length < info.size) scratch = Buffer.allocUnsafe(info.size);
      const read = readOpenFileSync(fd, info.size, scratch);
      return { sha256: sha256Hex(read), size: read.length, bytes: null };
    }
    const bytes = readOpenFileSync(fd, info.size);
    return { sha256: sha256Hex(bytes), size: bytes.length, bytes };
  } catch (error) {
    throw withErrno(absolutePath, error);
  } finally {
    closeSync(fd);
  }
}

/**
 * The item type whose signature format applies to a bundle path: files under
 * `.ai/<type folder>/` with one of that type's extensions; undefined otherwise.
 */
export function itemTypeOfPath(path: string): ItemType | undefined {
  const type = ITEM_TYPES.find((t) => path.startsWith(`.ai/${ITEM_FOLDERS[t]}/`));
  if (type === undefined) return undefined;
  const dot = path.lastIndexOf('.');
  const extension = dot > path.lastIndexOf('/') ? path.slice(dot).toLowerCase() : '';
  return ITEM_EXTENSIONS[type].includes(extension) ? type : undefined;
}

/**
 * True when the file is UTF-8 text with a signature line where its format puts
 * one (`locateCommentSignature`: signed or malformed). The signature itself is
 * verified by `verifyBundle`.
 */
export function hasInlineSignature(path: string, bytes: Uint8Array): boolean {
  const type = itemTypeOfPath(path);
  if (type === undefined) return false;
  // Every item extension has a signature format.
  const format = signatureFormatFor(type, path.slice(path.lastIndexOf('.'))) as SignatureFormat;
  let text: string;
  try {
    text = normalizeNewlines(decodeText(bytes, path));
  } catch {
    return false;
  }
  // A malformed line still claims a signature: verifyBundle then reports it as bad.
  if (format.kind === 'comment') return locateCommentSignature(text, format).status !== 'unsigned';
  try {
    return readJsonSignature(text, format.field, path).payload !== null;
  } catch {
    return false;
  }
}

/** FILE_UNREADABLE for what node:fs (or the regular-file check) threw: always an Error. */
function withErrno(path: string, error: unknown): RyeError {
  const { code, message } = error as NodeJS.ErrnoException;
  return unreadableFile(path, code ?? null, message, error);
}

/** FILE_UNREADABLE for a file: `details.errno` is the error's code (null when it had none). */
export function unreadableFile(
  path: string,
  errno: string | null,
  message: string,
  cause?: unknown,
): RyeError {
  return new RyeError(
    'FILE_UNREADABLE',
    `Cannot read ${path}: ${errno === null ? message : `${errno} (${message})`}`,
    { path, errno },
    cause === undefined ? undefined : { cause },
  );
}
