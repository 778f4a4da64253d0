import { extname } from 'node:path';
import { isRyeError } from '../errors/index.js';
import { readTextFileSync } from '../platform/index.js';
import type { VerifySubject } from './key-scope.js';
import type { ItemType, SignatureFormatTable } from './signature-formats.js';
import type { TrustSet } from './trust.js';
import { emptyResult, type VerifyResult } from './verdict.js';
import { verifyText, verifyTextAsync, type VerifyTextOptions } from './verify.js';

export interface VerifyFileOptions {
  extension?: string;
  formats?: SignatureFormatTable;
  subject?: VerifySubject | null;
}

/**
 * Read one file (size-capped, strict UTF-8) and verify it. The read is
 * synchronous: an item is at most MAX_ITEM_BYTES, opened non-blocking (a FIFO
 * cannot stall it) and checked to be a regular file on the descriptor it is
 * read from, and one read costs less than the thread-pool round trips of an
 * async one; the signature check itself stays asynchronous, so files verified
 * together use every core. I/O failures (FILE_UNREADABLE, FILE_BINARY,
 * FILE_TOO_LARGE) become the `unreadable` verdict with their code, never
 * "unsigned". `options.subject` is the item checked against a restricted
 * key's scope (see VerifyTextOptions).
 */
export async function verifyFile(
  path: string,
  itemType: ItemType,
  trust: TrustSet,
  options: VerifyFileOptions = {},
): Promise<VerifyResult> {
  const read = readForVerify(path, itemType);
  return typeof read === 'string'
    ? verifyTextAsync(read, textOptions(path, itemType, trust, options))
    : read;
}

/**
 * {@link verifyFile} with the signature checked on this thread: for one file
 * on its own (`rye verify-file`), where the thread pool's round trip (~0.5 ms
 * on a cold process) costs more than the check. Same verdicts, same codes.
 */
export function verifyFileSync(
  path: string,
  itemType: ItemType,
  trust: TrustSet,
  options: VerifyFileOptions = {},
): VerifyResult {
  const read = readForVerify(path, itemType);
  return typeof read === 'string'
    ? verifyText(read, textOptions(path, itemType, trust, options))
    : read;
}

/** The file's text, or the `unreadable` verdict of a read that failed. */
function readForVerify(path: string, itemType: ItemType): string | VerifyResult {
  try {
    return readTextFileSync(path);
  } catch (error) {
    // Defensive: readTextFileSync throws only RyeErrors; a bug must not become a verdict.
    /* v8 ignore if */
    if (!isRyeError(error)) throw error;
    return {
      ...emptyResult(itemType, path),
      verdict: 'unreadable',
      code: error.code,
      message: error.message,
    };
  }
}

function textOptions(
  path: string,
  itemType: ItemType,
  trust: TrustSet,
  options: VerifyFileOptions,
): VerifyTextOptions {
  return {
    itemType,
    extension: options.extension ?? extname(path),
    trust,
    path,
    ...(options.formats === undefined ? {} : { formats: options.formats }),
    ...(options.subject === undefined ? {} : { subject: options.subject }),
  };
}
