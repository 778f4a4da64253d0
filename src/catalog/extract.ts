import { closeSync, constants, fstatSync, openSync } from 'node:fs';
import { isRyeError, type ErrorCode } from '../errors/index.js';
import { bodyWithoutSignature, sha256Hex } from '../integrity/index.js';
import { itemCategory, itemName } from '../items/index.js';
import { MAX_ITEM_BYTES, decodeText, readOpenFileSync } from '../platform/index.js';
import type { ItemFile } from './enumerate.js';
import { METADATA_READERS, type ItemSummary } from './metadata-readers.js';

/** Most body characters indexed per item: enough for any text a human reviews. */
export const MAX_INDEXED_BODY = 256 * 1024;

/**
 * One file's bytes as read, or why they could not be read (FILE_UNREADABLE,
 * FILE_TOO_LARGE, INTEGRITY_SYMLINK_ESCAPE).
 */
export type ItemBytes =
  | { readonly bytes: Buffer; readonly sha256: string }
  | { readonly bytes: null; readonly sha256: null; readonly code: ErrorCode };

/** What the index holds for one file. */
export interface IndexRecord {
  /** SHA-256 of the raw bytes; null when they could not be read. */
  readonly sha256: string | null;
  readonly summary: ItemSummary;
  /** The text, signature line removed, cut to MAX_INDEXED_BODY characters. */
  readonly body: string;
  /**
   * Why loading would fail whatever the signature says (FILE_*, METADATA_PARSE_FAILED,
   * PARSE_UNSAFE_CONTENT, LOAD_IDENTITY_MISMATCH), or null.
   */
  readonly problem: ErrorCode | null;
}

/**
 * Read a file once (size-capped), never through a symbolic link (O_NOFOLLOW:
 * a file swapped for a link after it was listed is not read, so no text from
 * outside the spaces reaches the index), and hash its bytes.
 */
export function readItemBytes(path: string): ItemBytes {
  let fd: number;
  try {
    // O_NOFOLLOW is absent on Windows (0): there listing's lstat stands alone.
    fd = openSync(
      path,
      constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0),
    );
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return failed(code === 'ELOOP' ? 'INTEGRITY_SYMLINK_ESCAPE' : 'FILE_UNREADABLE');
  }
  try {
    const info = fstatSync(fd);
    if (!info.isFile()) return failed('FILE_UNREADABLE');
    if (info.size > MAX_ITEM_BYTES) return failed('FILE_TOO_LARGE');
    const bytes = readOpenFileSync(fd, info.size);
    return { bytes, sha256: sha256Hex(bytes) };
  } catch {
    return failed('FILE_UNREADABLE');
  } finally {
    closeSync(fd);
  }
}

function failed(code: ErrorCode): ItemBytes {
  return { bytes: null, sha256: null, code };
}

/**
 * The index record of one file's bytes: its summary (through the type's
 * metadata reader) and its searchable body. A file that cannot be decoded or
 * parsed is still indexed, by id, with the reason as `problem`: a search
 * never hides an item that exists.
 */
export async function indexRecordOf(file: ItemFile, read: ItemBytes): Promise<IndexRecord> {
  const bare: ItemSummary = {
    version: null,
    title: itemName(file.itemId),
    description: null,
    category: itemCategory(file.itemId) || null,
    keywords: '',
  };
  if (read.bytes === null) return { sha256: null, summary: bare, body: '', problem: read.code };
  let text: string;
  try {
    text = decodeText(read.bytes, file.path);
  } catch (error) {
    if (!isRyeError(error)) throw error;
    return { sha256: read.sha256, summary: bare, body: '', problem: error.code };
  }
  const body = bodyWithoutSignature(text, file.itemType, file.extension);
  const searchable = file.itemType === 'knowledge' ? withoutFrontMatter(body) : body;
  const indexed =
    searchable.length > MAX_INDEXED_BODY ? searchable.slice(0, MAX_INDEXED_BODY) : searchable;
  try {
    const reading = await METADATA_READERS[file.itemType](
      body,
      file.extension,
      file.path,
      file.itemId,
    );
    const problem = reading.identity.length > 0 ? 'LOAD_IDENTITY_MISMATCH' : null;
    return { sha256: read.sha256, summary: reading.summary, body: indexed, problem };
  } catch (error) {
    if (!isRyeError(error)) throw error;
    return { sha256: read.sha256, summary: bare, body: indexed, problem: error.code };
  }
}

// Leading blank or comment lines, then a ```yaml fence or a --- block (what
// extractKnowledgeMetadata reads). Each piece consumes whole lines: no nested
// quantifiers over the same characters, so a hostile body cannot make it backtrack.
const FRONT_MATTER =
  /^(?:[ \t]*(?:<!--[^\n]*-->[ \t]*)?\n)*(?:```ya?ml[ \t]*\n[\s\S]*?\n```|---[ \t]*\n[\s\S]*?\n(?:---|\.\.\.))[ \t]*(?:\n|$)/;

/**
 * A knowledge entry's Markdown without its leading YAML block: its fields are
 * indexed as title, description, category and tags, so snippets quote the text.
 */
function withoutFrontMatter(body: string): string {
  return body.replace(FRONT_MATTER, '');
}
