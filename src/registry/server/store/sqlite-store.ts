import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { openSqlite } from '../../../platform/index.js';
import { openBlobFolder } from './blob-folder.js';
import type { BlobFolder } from './blob-folder.js';
import {
  filesFromRows,
  hitFromRow,
  indexFromRows,
  keyParams,
  searchTextOf,
  summaryFromRow,
  versionFromRow,
} from './rows.js';
import { searchParams } from './search-sql.js';
import { migrateSqlite } from './sqlite-migrate.js';
import { prepareStatements } from './sqlite-statements.js';
import type { SqliteStatements } from './sqlite-statements.js';
import {
  blobMissing,
  blobsOf,
  keyTaken,
  usernameTaken,
  vanished,
  versionConflict,
} from './store-errors.js';
import type { PackageKey, PublishOutcome, RegistryStore, VersionRecord } from './types.js';

/**
 * Open the embedded registry store: `<dataDir>/registry.db` (WAL) for rows and
 * `<dataDir>/blobs/` for bytes. Creates the folder (0700) and the schema when
 * missing; opening an existing store keeps its data.
 *
 * better-sqlite3 is synchronous: each method runs to completion before it
 * returns its promise, so one process never interleaves two transactions.
 */
export async function openSqliteStore(dataDir: string): Promise<RegistryStore> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const blobs = await openBlobFolder(join(dataDir, 'blobs'));
  const db = openSqlite(join(dataDir, 'registry.db'));
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('busy_timeout = 5000');
    db.pragma('foreign_keys = ON');
    migrateSqlite(db);
    return sqliteStore(db, prepareStatements(db), blobs);
  } catch (error) {
    db.close();
    throw error;
  }
}

function sqliteStore(
  db: Database.Database,
  st: SqliteStatements,
  blobs: BlobFolder,
): RegistryStore {
  const readVersion = (key: PackageKey, version: string): VersionRecord | null => {
    const row = st.getVersion.get({ ...keyParams(key), version });
    if (row === undefined) return null;
    const files = row.kind === 'bundle' ? filesFromRows(st.getFiles.all(row.id)) : [];
    return versionFromRow(row, files);
  };

  const missingBlob = (sha256s: readonly string[]): string | null =>
    sha256s.find((sha256) => !blobs.has(sha256)) ?? null;

  // IMMEDIATE: take the write lock before reading, so another process cannot
  // slip a row in between the insert attempt and the read of the winner.
  // The change counter is taken first: a replay that inserts nothing leaves a
  // gap in the counter, which is harmless (seq need only grow).
  const nextSeq = (): number => {
    const row = st.nextSeq.get();
    if (row === undefined) throw new Error('index_seq has no row');
    return Number(row.value);
  };
  const publishTransaction = db.transaction((record: VersionRecord): PublishOutcome => {
    const seq = nextSeq();
    const inserted = st.insertVersion.get({
      ...keyParams(record),
      version: record.version,
      extension: record.extension,
      contentHash: record.contentHash,
      blobSha256: record.blobSha256,
      size: record.size,
      authorFingerprint: record.authorFingerprint,
      authorSignature: record.authorSignature,
      statement: record.statement,
      statementSignature: record.statementSignature,
      description: record.description,
      searchText: searchTextOf(record),
      publishedAt: record.publishedAt,
      yanked: record.yanked ? 1 : 0,
      seq,
    });
    if (inserted === undefined) {
      const existing = readVersion(record, record.version);
      if (existing === null) throw vanished(record);
      if (existing.contentHash === record.contentHash) {
        return { status: 'exists', record: existing };
      }
      throw versionConflict(existing, record);
    }
    for (const file of record.files) {
      st.insertFile.run(inserted.id, file.path, file.sha256, file.size);
    }
    const created = readVersion(record, record.version);
    if (created === null) throw vanished(record);
    return { status: 'created', record: created };
  });
  const yankTransaction = db.transaction(
    (key: PackageKey, version: string, yanked: boolean): boolean => {
      const params = { ...keyParams(key), version, yanked: yanked ? 1 : 0, seq: nextSeq() };
      return st.setYanked.run(params).changes > 0;
    },
  );

  return {
    backend: 'sqlite',
    async close() {
      db.close();
    },

    async createAccount(username, passwordHash, now) {
      const account = st.insertAccount.get(username, passwordHash, now);
      if (account === undefined) throw usernameTaken(username);
      return account;
    },
    async findAccount(username) {
      return st.findAccount.get(username) ?? null;
    },

    async createToken(accountId, tokenId, tokenHash, now) {
      st.insertToken.run(tokenId, accountId, tokenHash, now);
    },
    async findToken(tokenHash) {
      return st.findToken.get(tokenHash) ?? null;
    },
    async revokeToken(accountId, tokenId, now) {
      return st.revokeToken.run(now, accountId, tokenId).changes > 0;
    },

    async addKey(accountId, fingerprint, publicKey, now) {
      if (st.insertKey.run(fingerprint, accountId, publicKey, now).changes > 0) return 'added';
      if (st.keyOwner.get(fingerprint)?.accountId !== accountId) throw keyTaken(fingerprint);
      return st.restoreKey.run(now, accountId, fingerprint).changes > 0 ? 'added' : 'exists';
    },
    async listKeys(accountId) {
      return st.listKeys.all(accountId);
    },
    async removeKey(accountId, fingerprint, now) {
      if (st.removeKey.run(now, accountId, fingerprint).changes > 0) return 'removed';
      return st.keyOwner.get(fingerprint)?.accountId === accountId
        ? 'already_removed'
        : 'not_found';
    },

    putBlob: (sha256, bytes) => blobs.put(sha256, bytes),
    async hasBlob(sha256) {
      return blobs.has(sha256);
    },
    async missingBlob(sha256s) {
      return missingBlob(sha256s);
    },
    async getBlob(sha256) {
      return blobs.get(sha256);
    },
    async blobSizes(sha256s) {
      const sizes = new Map<string, number>();
      for (const sha256 of sha256s) {
        const size = blobs.size(sha256);
        if (size !== null) sizes.set(sha256, size);
      }
      return sizes;
    },
    async namespaceBytes(namespace) {
      return st.namespaceBytes.get({ namespace })?.bytes ?? 0;
    },

    async publish(record) {
      // Blobs are never deleted, so checking them before the transaction is safe.
      const missing = missingBlob(blobsOf(record));
      if (missing !== null) throw blobMissing(missing);
      return publishTransaction.immediate(record);
    },
    async getVersion(key, version) {
      return readVersion(key, version);
    },
    async listVersions(key) {
      return st.listVersions.all(keyParams(key)).map(summaryFromRow);
    },
    async packageIndex(key) {
      return indexFromRows(st.listIndex.all(keyParams(key)));
    },
    async setYanked(key, version, yanked) {
      return yankTransaction.immediate(key, version, yanked);
    },
    async search(query) {
      return st.search.all(searchParams(query)).map(hitFromRow);
    },
  };
}
