import { RyeError } from '../../../errors/index.js';
import { hexDigestsEqual, sha256Hex } from '../../../integrity/index.js';
import type { VersionRecord } from './types.js';

/** The errors both backends raise, worded once. */

const BLOB_ADDRESS = /^[0-9a-f]{64}$/;

/** True for a blob address (64 lowercase hex); nothing else is ever stored or looked up. */
export function isBlobAddress(sha256: string): boolean {
  return BLOB_ADDRESS.test(sha256);
}

/**
 * Check bytes against the address they are about to be stored under: the one
 * hash of an upload, so a wrong address never reaches disk or the database.
 * @throws RyeError REGISTRY_INVALID_REQUEST, REGISTRY_BLOB_HASH_MISMATCH
 */
export function checkBlobToStore(sha256: string, bytes: Uint8Array): void {
  if (!isBlobAddress(sha256)) {
    throw new RyeError(
      'REGISTRY_INVALID_REQUEST',
      'Cannot store a blob: its address is not 64 lowercase hex characters',
      { sha256 },
    );
  }
  const actual = sha256Hex(bytes);
  if (!hexDigestsEqual(actual, sha256)) {
    throw new RyeError(
      'REGISTRY_BLOB_HASH_MISMATCH',
      `Cannot store blob ${sha256}: the bytes hash to ${actual}`,
      { sha256, actual, algorithm: 'sha256' },
    );
  }
}

/**
 * Check bytes read back from storage.
 * @throws RyeError REGISTRY_BLOB_CORRUPT
 */
export function checkStoredBlob(sha256: string, bytes: Uint8Array): void {
  const actual = sha256Hex(bytes);
  if (!hexDigestsEqual(actual, sha256)) {
    throw new RyeError(
      'REGISTRY_BLOB_CORRUPT',
      `Cannot serve blob ${sha256}: the stored bytes hash to ${actual}`,
      { sha256, actual, algorithm: 'sha256' },
    );
  }
}

export function blobMissing(sha256: string): RyeError {
  return new RyeError('REGISTRY_BLOB_MISSING', `Cannot publish: blob ${sha256} is not stored`, {
    sha256,
  });
}

export function usernameTaken(username: string): RyeError {
  return new RyeError(
    'REGISTRY_USERNAME_TAKEN',
    `Cannot create account ${username}: the username is taken`,
    { username },
  );
}

export function keyTaken(fingerprint: string): RyeError {
  return new RyeError(
    'REGISTRY_KEY_TAKEN',
    `Cannot add key ${fingerprint}: another account registered it`,
    { fingerprint },
  );
}

export function versionConflict(existing: VersionRecord, attempted: VersionRecord): RyeError {
  const name = `${existing.namespace}/${existing.itemId}@${existing.version}`;
  return new RyeError(
    'REGISTRY_VERSION_CONFLICT',
    `Cannot publish ${name}: that version exists with other content`,
    {
      kind: existing.kind,
      itemType: existing.itemType,
      namespace: existing.namespace,
      itemId: existing.itemId,
      version: existing.version,
      existingContentHash: existing.contentHash,
      attemptedContentHash: attempted.contentHash,
    },
  );
}

/** A version row its own transaction cannot read back: a bug, never user input. */
export function vanished(record: VersionRecord): RyeError {
  return new RyeError(
    'INTERNAL_ERROR',
    `Cannot publish ${record.namespace}/${record.itemId}@${record.version}: the version row vanished inside its transaction`,
  );
}

/** Every blob a version references: its stored file, then each bundle file. */
export function blobsOf(record: VersionRecord): string[] {
  return [record.blobSha256, ...record.files.map((file) => file.sha256)];
}
