import { readFileSync, statSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { unreadable, writeFileAtomic } from '../../../platform/index.js';
import { checkBlobToStore, checkStoredBlob, isBlobAddress } from './store-errors.js';

/**
 * A content-addressed folder: `<root>/<first 2 hex>/<sha256 hex>`. Paths are
 * built only from validated addresses (64 lowercase hex), so no input can
 * name a file outside the root. Blobs are never deleted.
 */
export interface BlobFolder {
  /** @throws RyeError REGISTRY_INVALID_REQUEST, REGISTRY_BLOB_HASH_MISMATCH, FILE_WRITE_FAILED */
  put(sha256: string, bytes: Buffer): Promise<void>;
  has(sha256: string): boolean;
  /** @throws RyeError REGISTRY_BLOB_CORRUPT, FILE_UNREADABLE */
  get(sha256: string): Buffer | null;
  /** The stored size in bytes, or null when absent. */
  size(sha256: string): number | null;
}

const FILE_MODE = 0o644;
const DIR_MODE = 0o755;

/** Open (creating if needed) the blob folder at `root`. */
export async function openBlobFolder(root: string): Promise<BlobFolder> {
  await mkdir(root, { recursive: true, mode: DIR_MODE });
  const pathOf = (sha256: string): string => join(root, sha256.slice(0, 2), sha256);
  const has = (sha256: string): boolean =>
    isBlobAddress(sha256) && statSync(pathOf(sha256), { throwIfNoEntry: false })?.isFile() === true;

  return {
    has,
    size(sha256) {
      if (!isBlobAddress(sha256)) return null;
      const stat = statSync(pathOf(sha256), { throwIfNoEntry: false });
      return stat?.isFile() === true ? stat.size : null;
    },
    async put(sha256, bytes) {
      checkBlobToStore(sha256, bytes);
      if (has(sha256)) return;
      // Temp file in the same folder, fsync, rename: a reader sees the whole
      // blob or none. Two writers of one blob both rename identical bytes.
      await writeFileAtomic(pathOf(sha256), bytes, { mode: FILE_MODE, dirMode: DIR_MODE });
    },
    get(sha256) {
      if (!isBlobAddress(sha256)) return null;
      const path = pathOf(sha256);
      let bytes: Buffer;
      try {
        // Synchronous on purpose: blobs are small and a pull is on the hot
        // path, where a thread-pool round trip costs more than the read.
        bytes = readFileSync(path);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw unreadable(path, error);
      }
      checkStoredBlob(sha256, bytes);
      return bytes;
    },
  };
}
