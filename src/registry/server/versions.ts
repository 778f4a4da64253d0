import { RyeError } from '../../errors/index.js';
import { assertVersion } from '../names.js';
import { latestOf } from '../package-index.js';
import { notFound } from './errors.js';
import type { PackageKey, RegistryStore, VersionRecord, VersionSummary } from './store/index.js';

/**
 * The highest version by semver precedence that is not yanked, or undefined:
 * the same choice the signed package index states as `latest`. Pure.
 */
export function latestVersion(versions: readonly VersionSummary[]): string | undefined {
  return latestOf(versions) ?? undefined;
}

/**
 * One published version: the one asked for (yanked or not), or the latest
 * that is not yanked.
 * @throws RyeError REGISTRY_REF_INVALID, REGISTRY_NOT_FOUND
 */
export async function findVersion(
  store: RegistryStore,
  key: PackageKey,
  version: string | undefined,
): Promise<VersionRecord> {
  const name = `${key.namespace}/${key.itemId}`;
  let wanted = version;
  if (wanted === undefined) {
    wanted = latestVersion(await store.listVersions(key));
    if (wanted === undefined)
      throw notFound(`Cannot find ${name}: nothing published that is not yanked`);
  } else {
    assertVersion(wanted);
  }
  const record = await store.getVersion(key, wanted);
  if (record === null) throw notFound(`Cannot find ${name}@${wanted}`);
  return record;
}

/**
 * The stored bytes of a version (re-hashed by the store).
 * @throws RyeError REGISTRY_BLOB_CORRUPT, also when the blob has gone
 */
export async function readVersionBlob(
  store: RegistryStore,
  record: VersionRecord,
): Promise<Buffer> {
  const bytes = await store.getBlob(record.blobSha256);
  if (bytes === null) {
    throw new RyeError(
      'REGISTRY_BLOB_CORRUPT',
      `Cannot serve ${record.namespace}/${record.itemId}@${record.version}: its stored blob is missing`,
      { sha256: record.blobSha256 },
    );
  }
  return bytes;
}

/**
 * A push of a version that already exists must carry the same content.
 * @throws RyeError REGISTRY_VERSION_CONFLICT
 */
export function assertSameContent(existing: VersionRecord, contentHash: string): void {
  if (existing.contentHash === contentHash) return;
  throw new RyeError(
    'REGISTRY_VERSION_CONFLICT',
    `Cannot publish ${existing.namespace}/${existing.itemId}@${existing.version}: that version is published with other content (versions are immutable; bump the version)`,
    { expected: existing.contentHash, actual: contentHash },
  );
}
