import { userInfo } from 'node:os';
import pg from 'pg';
import { isRyeError, RyeError } from '../../../errors/index.js';
import { messageOf } from '../../../platform/index.js';
import { migratePostgres } from './postgres-migrate.js';
import { keyValues, readVersion, SQL, versionKeyValues } from './postgres-queries.js';
import { inTransaction } from './postgres-transaction.js';
import { parsePostgresUrl } from './postgres-url.js';
import type { IndexRow, SearchRow, SummaryRow } from './rows.js';
import { hitFromRow, indexFromRows, searchTextOf, summaryFromRow } from './rows.js';
import { searchParams } from './search-sql.js';
import {
  blobMissing,
  blobsOf,
  checkBlobToStore,
  checkStoredBlob,
  isBlobAddress,
  keyTaken,
  usernameTaken,
  vanished,
  versionConflict,
} from './store-errors.js';
import type {
  Account,
  AuthorKeyRecord,
  PublishOutcome,
  RegistryStore,
  TokenRecord,
  VersionRecord,
} from './types.js';

const POOL_SIZE = 10;

/**
 * Open the shared registry store in PostgreSQL: rows and blobs alike, so
 * several server instances can serve one database. A `schema` query parameter
 * (`postgres://host/db?schema=reg`) keeps every table in that schema (created
 * if missing). Creates or upgrades the schema before returning.
 *
 * @throws RyeError USAGE_INVALID_ARGUMENT for a malformed URL or schema name
 * @throws RyeError REGISTRY_INTERNAL when the database cannot be reached or migrated
 */
export async function openPostgresStore(url: string): Promise<RegistryStore> {
  const target = parsePostgresUrl(url, loginName());
  const pool = new pg.Pool({
    connectionString: target.connectionString,
    max: POOL_SIZE,
    // Set at connection start-up: no extra round trip per pooled connection.
    ...(target.schema === null ? {} : { options: `-c search_path=${target.schema}` }),
  });
  // An idle connection that dies (server restart, network) is dropped by the
  // pool; without a listener its 'error' event would end the process.
  pool.on('error', () => undefined);
  try {
    await migratePostgres(pool, target.schema);
  } catch (error) {
    await pool.end();
    if (isRyeError(error)) throw error;
    throw new RyeError(
      'REGISTRY_INTERNAL',
      `Cannot open the PostgreSQL registry database ${target.label}: ${messageOf(error)}`,
      { database: target.label },
      { cause: error },
    );
  }
  return postgresStore(pool);
}

/** The user name libpq would log in with when the URL names none. */
function loginName(): string {
  const fromEnv = process.env['PGUSER'] ?? process.env['USER'];
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
  return userInfo().username;
}

async function storedBlobs(
  client: pg.Pool | pg.PoolClient,
  sha256s: readonly string[],
): Promise<Set<string>> {
  const result = await client.query<{ sha256: string }>(SQL.storedBlobs, [sha256s]);
  return new Set(result.rows.map((row) => row.sha256));
}

/** Take the next change counter value; the row stays locked until this transaction ends. */
async function nextSeq(client: pg.PoolClient): Promise<number> {
  const row = (await client.query<{ value: string }>(SQL.nextSeq)).rows[0];
  if (row === undefined) throw new Error('index_seq has no row');
  return Number(row.value);
}

async function publishIn(client: pg.PoolClient, record: VersionRecord): Promise<PublishOutcome> {
  const wanted = blobsOf(record);
  const stored = await storedBlobs(client, wanted);
  const missing = wanted.find((sha256) => !stored.has(sha256));
  if (missing !== undefined) throw blobMissing(missing);
  const seq = await nextSeq(client);

  // ON CONFLICT waits for a concurrent insert of the same version to commit or
  // roll back, so exactly one publisher creates and the others read its row.
  const inserted = await client.query<{ id: string }>(SQL.insertVersion, [
    ...versionKeyValues(record, record.version),
    record.extension,
    record.contentHash,
    record.blobSha256,
    record.size,
    record.authorFingerprint,
    record.authorSignature,
    record.statement,
    record.statementSignature,
    record.description,
    searchTextOf(record),
    record.publishedAt,
    record.yanked,
    seq,
  ]);
  const id = inserted.rows[0]?.id;
  if (id === undefined) {
    const existing = await readVersion(client, record, record.version);
    if (existing === null) throw vanished(record);
    if (existing.contentHash === record.contentHash) {
      return { status: 'exists', record: existing };
    }
    throw versionConflict(existing, record);
  }
  if (record.files.length > 0) {
    await client.query(SQL.insertFiles, [
      id,
      record.files.map((file) => file.path),
      record.files.map((file) => file.sha256),
      record.files.map((file) => file.size),
    ]);
  }
  const created = await readVersion(client, record, record.version);
  if (created === null) throw vanished(record);
  return { status: 'created', record: created };
}

function postgresStore(pool: pg.Pool): RegistryStore {
  return {
    backend: 'postgres',
    async close() {
      await pool.end();
    },

    async createAccount(username, passwordHash, now) {
      const result = await pool.query<Account>(SQL.insertAccount, [username, passwordHash, now]);
      const account = result.rows[0];
      if (account === undefined) throw usernameTaken(username);
      return account;
    },
    async findAccount(username) {
      return (await pool.query<Account>(SQL.findAccount, [username])).rows[0] ?? null;
    },

    async createToken(accountId, tokenId, tokenHash, now) {
      await pool.query(SQL.insertToken, [tokenId, accountId, tokenHash, now]);
    },
    async findToken(tokenHash) {
      const result = await pool.query<TokenRecord>({
        name: 'rye-find-token',
        text: SQL.findToken,
        values: [tokenHash],
      });
      return result.rows[0] ?? null;
    },
    async revokeToken(accountId, tokenId, now) {
      return ((await pool.query(SQL.revokeToken, [now, accountId, tokenId])).rowCount ?? 0) > 0;
    },

    async addKey(accountId, fingerprint, publicKey, now) {
      const inserted = await pool.query(SQL.insertKey, [fingerprint, accountId, publicKey, now]);
      if ((inserted.rowCount ?? 0) > 0) return 'added';
      const owner = await pool.query<{ accountId: number }>(SQL.keyOwner, [fingerprint]);
      if (owner.rows[0]?.accountId !== accountId) throw keyTaken(fingerprint);
      const restored = await pool.query(SQL.restoreKey, [now, accountId, fingerprint]);
      return (restored.rowCount ?? 0) > 0 ? 'added' : 'exists';
    },
    async listKeys(accountId) {
      return (await pool.query<AuthorKeyRecord>(SQL.listKeys, [accountId])).rows;
    },
    async removeKey(accountId, fingerprint, now) {
      const removed = await pool.query(SQL.removeKey, [now, accountId, fingerprint]);
      if ((removed.rowCount ?? 0) > 0) return 'removed';
      const owner = await pool.query<{ accountId: number }>(SQL.keyOwner, [fingerprint]);
      return owner.rows[0]?.accountId === accountId ? 'already_removed' : 'not_found';
    },

    async putBlob(sha256, bytes) {
      checkBlobToStore(sha256, bytes);
      await pool.query(SQL.insertBlob, [sha256, bytes.length, bytes]);
    },
    async hasBlob(sha256) {
      if (!isBlobAddress(sha256)) return false;
      return ((await pool.query(SQL.hasBlob, [sha256])).rowCount ?? 0) > 0;
    },
    async missingBlob(sha256s) {
      if (sha256s.length === 0) return null;
      const stored = await storedBlobs(pool, sha256s);
      return sha256s.find((sha256) => !stored.has(sha256)) ?? null;
    },
    async getBlob(sha256) {
      if (!isBlobAddress(sha256)) return null;
      const result = await pool.query<{ data: Buffer }>({
        name: 'rye-get-blob',
        text: SQL.getBlob,
        values: [sha256],
      });
      const bytes = result.rows[0]?.data;
      if (bytes === undefined) return null;
      checkStoredBlob(sha256, bytes);
      return bytes;
    },

    async blobSizes(sha256s) {
      const sizes = new Map<string, number>();
      if (sha256s.length === 0) return sizes;
      const result = await pool.query<{ sha256: string; size: number }>(SQL.blobSizes, [sha256s]);
      for (const row of result.rows) sizes.set(row.sha256, row.size);
      return sizes;
    },
    async namespaceBytes(namespace) {
      const result = await pool.query<{ bytes: number }>(SQL.namespaceBytes, [namespace]);
      return result.rows[0]?.bytes ?? 0;
    },

    async publish(record) {
      return inTransaction(pool, (client) => publishIn(client, record));
    },
    async getVersion(key, version) {
      // Straight on the pool: a published row and its file rows never change.
      return readVersion(pool, key, version);
    },
    async listVersions(key) {
      const result = await pool.query<SummaryRow>(SQL.listVersions, keyValues(key));
      return result.rows.map(summaryFromRow);
    },
    async packageIndex(key) {
      const result = await pool.query<IndexRow>({
        name: 'rye-list-index',
        text: SQL.listIndex,
        values: keyValues(key),
      });
      return indexFromRows(result.rows);
    },
    async setYanked(key, version, yanked) {
      return inTransaction(pool, async (client) => {
        const values = [...versionKeyValues(key, version), yanked, await nextSeq(client)];
        return ((await client.query(SQL.setYanked, values)).rowCount ?? 0) > 0;
      });
    },
    async search(query) {
      const p = searchParams(query);
      const values = [p.kind, p.itemType, p.namespace, p.pattern, p.limit];
      return (await pool.query<SearchRow>(SQL.search, values)).rows.map(hitFromRow);
    },
  };
}
