import { closeSync, constants, fstatSync, openSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { RyeError } from '../errors/index.js';
import { typeRoot, type ResolvedItem, type Spaces } from '../items/index.js';
import { MAX_ITEM_BYTES, readOpenFileSync, relativeInside, unreadable } from '../platform/index.js';

/** An item file's bytes, read from the path its id names. */
export interface OwnFile {
  readonly realPath: string;
  readonly bytes: Buffer;
}

/**
 * Read a resolved item's file, refusing any symbolic link on the way from its
 * space's type folder: the real path must be exactly `<real type folder>/<id><ext>`.
 * Enumeration never follows links, so a file reached through one is not an
 * item, and a linked folder (`knowledge/public -> ../secret`) cannot make one
 * id serve another's bytes past an id-based authority check. The file is
 * opened with O_NOFOLLOW, so a link swapped in after the check is not read.
 *
 * @throws RyeError INTEGRITY_SYMLINK_ESCAPE, FILE_UNREADABLE, FILE_TOO_LARGE
 */
export function readOwnFile(spaces: Spaces, item: ResolvedItem): OwnFile {
  const root = typeRoot(spaces, item.space, item.itemType);
  let realRoot: string;
  let realPath: string;
  try {
    realRoot = realpathSync.native(root);
    realPath = realpathSync.native(item.path);
  } catch (error) {
    throw unreadable(item.path, error);
  }
  const expected = join(realRoot, ...`${item.itemId}${item.extension}`.split('/'));
  if (realPath !== expected) {
    const outside = relativeInside(realRoot, realPath) === undefined;
    throw new RyeError(
      'INTEGRITY_SYMLINK_ESCAPE',
      `Cannot load ${item.itemType} ${item.itemId}: ${item.path} resolves through a symbolic link to ${realPath}${outside ? `, outside ${root}` : ''}`,
      { itemType: item.itemType, itemId: item.itemId, path: item.path, target: realPath },
    );
  }
  return { realPath, bytes: readNoFollow(realPath) };
}

function readNoFollow(path: string): Buffer {
  let fd: number;
  try {
    // O_NOFOLLOW is absent on Windows (0): there the realpath check above stands alone.
    fd = openSync(
      path,
      constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0),
    );
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') {
      throw new RyeError(
        'INTEGRITY_SYMLINK_ESCAPE',
        `Cannot load ${path}: it became a symbolic link while being read`,
        { path },
      );
    }
    throw unreadable(path, error);
  }
  try {
    const info = fstatSync(fd);
    if (!info.isFile()) throw unreadable(path, new Error('not a regular file'));
    if (info.size > MAX_ITEM_BYTES) {
      throw new RyeError(
        'FILE_TOO_LARGE',
        `Cannot read ${path}: ${info.size} bytes is over the cap of ${MAX_ITEM_BYTES}`,
        { path, size: info.size, maxBytes: MAX_ITEM_BYTES },
      );
    }
    return readOpenFileSync(fd, info.size);
  } finally {
    closeSync(fd);
  }
}
