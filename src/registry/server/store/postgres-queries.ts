import type pg from 'pg';
import type { FileRow, VersionRow } from './rows.js';
import {
  filesFromRows,
  INDEX_COLUMNS,
  keyParams,
  SUMMARY_COLUMNS,
  VERSION_COLUMNS,
  versionFromRow,
} from './rows.js';
import { searchSql } from './search-sql.js';
import type { PackageKey, VersionRecord } from './types.js';

/**
 * The PostgreSQL store's SQL. Queries on the pull path carry a name, so each
 * pooled connection parses and plans them once.
 */

const KEY = 'kind = $1 AND item_type = $2 AND namespace = $3 AND item_id = $4';

export const ACCOUNT_COLUMNS =
  'id, username, password_hash AS "passwordHash", created_at AS "createdAt"';

export const SQL = {
  insertAccount: `INSERT INTO accounts (username, password_hash, created_at) VALUES ($1, $2, $3)
    ON CONFLICT (username) DO NOTHING RETURNING ${ACCOUNT_COLUMNS}`,
  findAccount: `SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE username = $1`,
  insertToken: `INSERT INTO tokens (token_id, account_id, token_hash, created_at) VALUES ($1, $2, $3, $4)`,
  findToken: `SELECT t.token_id AS "tokenId", t.account_id AS "accountId", a.username,
      t.created_at AS "createdAt", t.revoked_at AS "revokedAt"
    FROM tokens t JOIN accounts a ON a.id = t.account_id WHERE t.token_hash = $1`,
  // COALESCE keeps the first revocation time when a token is revoked twice.
  revokeToken: `UPDATE tokens SET revoked_at = COALESCE(revoked_at, $1)
    WHERE account_id = $2 AND token_id = $3`,
  insertKey: `INSERT INTO author_keys (fingerprint, account_id, public_key, added_at)
    VALUES ($1, $2, $3, $4) ON CONFLICT (fingerprint) DO NOTHING`,
  keyOwner: `SELECT account_id AS "accountId" FROM author_keys WHERE fingerprint = $1`,
  restoreKey: `UPDATE author_keys SET removed_at = NULL, added_at = $1
    WHERE account_id = $2 AND fingerprint = $3 AND removed_at IS NOT NULL`,
  removeKey: `UPDATE author_keys SET removed_at = $1
    WHERE account_id = $2 AND fingerprint = $3 AND removed_at IS NULL`,
  listKeys: `SELECT k.fingerprint, k.public_key AS "publicKey", k.account_id AS "accountId",
      a.username, k.added_at AS "addedAt", k.removed_at AS "removedAt"
    FROM author_keys k JOIN accounts a ON a.id = k.account_id
    WHERE k.account_id = $1 ORDER BY k.added_at, k.fingerprint COLLATE "C"`,
  insertBlob: `INSERT INTO blobs (sha256, size, data) VALUES ($1, $2, $3) ON CONFLICT (sha256) DO NOTHING`,
  hasBlob: `SELECT 1 FROM blobs WHERE sha256 = $1`,
  storedBlobs: `SELECT sha256 FROM blobs WHERE sha256 = ANY($1::text[])`,
  blobSizes: `SELECT sha256, size::float8 AS size FROM blobs WHERE sha256 = ANY($1::text[])`,
  // UNION (not UNION ALL): a blob several versions share is counted once.
  namespaceBytes: `SELECT COALESCE(SUM(size), 0)::float8 AS bytes FROM (
  SELECT blob_sha256 AS sha256, size FROM versions WHERE namespace = $1
  UNION
  SELECT f.sha256, f.size FROM bundle_files f JOIN versions v ON v.id = f.version_id
  WHERE v.namespace = $1
) AS used`,
  getBlob: `SELECT data FROM blobs WHERE sha256 = $1`,
  insertVersion: `INSERT INTO versions (kind, item_type, namespace, item_id, version, extension,
      content_hash, blob_sha256, size, author_fingerprint, author_signature, statement,
      statement_signature, description, search_text, published_at, yanked, seq)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)
    ON CONFLICT (kind, item_type, namespace, item_id, version) DO NOTHING RETURNING id`,
  insertFiles: `INSERT INTO bundle_files (version_id, path, sha256, size)
    SELECT $1, f.path, f.sha256, f.size
    FROM unnest($2::text[], $3::text[], $4::bigint[]) AS f(path, sha256, size)`,
  getVersion: `SELECT ${VERSION_COLUMNS} FROM versions WHERE ${KEY} AND version = $5`,
  getFiles: `SELECT path, sha256, size FROM bundle_files WHERE version_id = $1`,
  listVersions: `SELECT ${SUMMARY_COLUMNS} FROM versions WHERE ${KEY} ORDER BY published_at COLLATE "C", id`,
  setYanked: `UPDATE versions SET yanked = $6, seq = $7 WHERE ${KEY} AND version = $5`,
  // The row lock is held until COMMIT: a second writer waits here, so counter
  // values follow commit order and no reader sees a change under an old seq.
  nextSeq: `UPDATE index_seq SET value = value + 1 WHERE id = 1 RETURNING value`,
  listIndex: `SELECT ${INDEX_COLUMNS} FROM versions WHERE ${KEY} ORDER BY published_at COLLATE "C", id`,
  search: searchSql({
    kind: '$1::text',
    itemType: '$2::text',
    namespace: '$3::text',
    pattern: '$4',
    limit: '$5',
    byteOrder: ' COLLATE "C"',
  }),
} as const;

/** The package key as positional values ($1..$4). */
export function keyValues(key: PackageKey): string[] {
  const params = keyParams(key);
  return [params.kind, params.itemType, params.namespace, params.itemId];
}

/** The package key and version as positional values ($1..$5). */
export function versionKeyValues(key: PackageKey, version: string): string[] {
  return [...keyValues(key), version];
}

/** One version with its bundle files, read on `client` (inside its transaction, if any). */
export async function readVersion(
  client: pg.Pool | pg.PoolClient,
  key: PackageKey,
  version: string,
): Promise<VersionRecord | null> {
  const result = await client.query<VersionRow>({
    name: 'rye-get-version',
    text: SQL.getVersion,
    values: versionKeyValues(key, version),
  });
  const row = result.rows[0];
  if (row === undefined) return null;
  if (row.kind !== 'bundle') return versionFromRow(row, []);
  const files = await client.query<FileRow>({
    name: 'rye-get-files',
    text: SQL.getFiles,
    values: [row.id],
  });
  return versionFromRow(row, filesFromRows(files.rows));
}
