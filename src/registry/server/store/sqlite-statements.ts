import type Database from 'better-sqlite3';
import type { FileRow, IndexRow, KeyParams, SearchRow, SummaryRow, VersionRow } from './rows.js';
import { INDEX_COLUMNS, SUMMARY_COLUMNS, VERSION_COLUMNS } from './rows.js';
import type { SearchParams } from './search-sql.js';
import { searchSql } from './search-sql.js';
import type { Account, AuthorKeyRecord, TokenRecord } from './types.js';

const KEY =
  'kind = @kind AND item_type = @itemType AND namespace = @namespace AND item_id = @itemId';

const ACCOUNT_COLUMNS = 'id, username, password_hash AS "passwordHash", created_at AS "createdAt"';

/** A version row as bound: the package key plus every stored column. */
export interface VersionParams extends KeyParams {
  readonly version: string;
  readonly extension: string | null;
  readonly contentHash: string;
  readonly blobSha256: string;
  readonly size: number;
  readonly authorFingerprint: string;
  readonly authorSignature: string;
  readonly statement: string;
  readonly statementSignature: string;
  readonly description: string | null;
  readonly searchText: string;
  readonly publishedAt: string;
  readonly yanked: number;
  /** The change counter value this publish took. */
  readonly seq: number;
}

type VersionKeyParams = KeyParams & { readonly version: string };
type Statement<P extends unknown[] | object, R = unknown> = Database.Statement<P, R>;

/** Every statement the SQLite store runs, prepared once when it opens. */
export interface SqliteStatements {
  readonly insertAccount: Statement<[string, string, string], Account>;
  readonly findAccount: Statement<[string], Account>;
  readonly insertToken: Statement<[string, number, string, string]>;
  readonly findToken: Statement<[string], TokenRecord>;
  readonly revokeToken: Statement<[string, number, string]>;
  readonly insertKey: Statement<[string, number, string, string]>;
  readonly keyOwner: Statement<[string], { accountId: number; removedAt: string | null }>;
  readonly restoreKey: Statement<[string, number, string]>;
  readonly removeKey: Statement<[string, number, string]>;
  readonly listKeys: Statement<[number], AuthorKeyRecord>;
  readonly insertVersion: Statement<VersionParams, { id: number }>;
  readonly insertFile: Statement<[number, string, string, number]>;
  readonly getVersion: Statement<VersionKeyParams, VersionRow>;
  readonly getFiles: Statement<[number | string], FileRow>;
  readonly listVersions: Statement<KeyParams, SummaryRow>;
  readonly setYanked: Statement<
    VersionKeyParams & { readonly yanked: number; readonly seq: number }
  >;
  readonly nextSeq: Statement<[], { value: number }>;
  readonly listIndex: Statement<KeyParams, IndexRow>;
  readonly search: Statement<SearchParams, SearchRow>;
  readonly namespaceBytes: Statement<{ readonly namespace: string }, { bytes: number }>;
}

export function prepareStatements(db: Database.Database): SqliteStatements {
  return {
    insertAccount: db.prepare<[string, string, string], Account>(
      `INSERT INTO accounts (username, password_hash, created_at) VALUES (?, ?, ?)
       ON CONFLICT (username) DO NOTHING RETURNING ${ACCOUNT_COLUMNS}`,
    ),
    findAccount: db.prepare<[string], Account>(
      `SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE username = ?`,
    ),
    insertToken: db.prepare<[string, number, string, string]>(
      `INSERT INTO tokens (token_id, account_id, token_hash, created_at) VALUES (?, ?, ?, ?)`,
    ),
    findToken: db.prepare<[string], TokenRecord>(
      `SELECT t.token_id AS "tokenId", t.account_id AS "accountId", a.username,
         t.created_at AS "createdAt", t.revoked_at AS "revokedAt"
       FROM tokens t JOIN accounts a ON a.id = t.account_id WHERE t.token_hash = ?`,
    ),
    // COALESCE keeps the first revocation time when a token is revoked twice.
    revokeToken: db.prepare<[string, number, string]>(
      `UPDATE tokens SET revoked_at = COALESCE(revoked_at, ?) WHERE account_id = ? AND token_id = ?`,
    ),
    insertKey: db.prepare<[string, number, string, string]>(
      `INSERT INTO author_keys (fingerprint, account_id, public_key, added_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (fingerprint) DO NOTHING`,
    ),
    keyOwner: db.prepare<[string], { accountId: number; removedAt: string | null }>(
      `SELECT account_id AS "accountId", removed_at AS "removedAt" FROM author_keys WHERE fingerprint = ?`,
    ),
    restoreKey: db.prepare<[string, number, string]>(
      `UPDATE author_keys SET removed_at = NULL, added_at = ?
       WHERE account_id = ? AND fingerprint = ? AND removed_at IS NOT NULL`,
    ),
    removeKey: db.prepare<[string, number, string]>(
      `UPDATE author_keys SET removed_at = ?
       WHERE account_id = ? AND fingerprint = ? AND removed_at IS NULL`,
    ),
    listKeys: db.prepare<[number], AuthorKeyRecord>(
      `SELECT k.fingerprint, k.public_key AS "publicKey", k.account_id AS "accountId", a.username,
         k.added_at AS "addedAt", k.removed_at AS "removedAt"
       FROM author_keys k JOIN accounts a ON a.id = k.account_id
       WHERE k.account_id = ? ORDER BY k.added_at, k.fingerprint`,
    ),
    insertVersion: db.prepare<VersionParams, { id: number }>(
      `INSERT INTO versions (kind, item_type, namespace, item_id, version, extension, content_hash,
         blob_sha256, size, author_fingerprint, author_signature, statement, statement_signature,
         description, search_text, published_at, yanked, seq)
       VALUES (@kind, @itemType, @namespace, @itemId, @version, @extension, @contentHash,
         @blobSha256, @size, @authorFingerprint, @authorSignature, @statement, @statementSignature,
         @description, @searchText, @publishedAt, @yanked, @seq)
       ON CONFLICT (kind, item_type, namespace, item_id, version) DO NOTHING RETURNING id`,
    ),
    insertFile: db.prepare<[number, string, string, number]>(
      `INSERT INTO bundle_files (version_id, path, sha256, size) VALUES (?, ?, ?, ?)`,
    ),
    getVersion: db.prepare<VersionKeyParams, VersionRow>(
      `SELECT ${VERSION_COLUMNS} FROM versions WHERE ${KEY} AND version = @version`,
    ),
    getFiles: db.prepare<[number | string], FileRow>(
      `SELECT path, sha256, size FROM bundle_files WHERE version_id = ?`,
    ),
    listVersions: db.prepare<KeyParams, SummaryRow>(
      `SELECT ${SUMMARY_COLUMNS} FROM versions WHERE ${KEY} ORDER BY published_at, id`,
    ),
    setYanked: db.prepare<VersionKeyParams & { readonly yanked: number; readonly seq: number }>(
      `UPDATE versions SET yanked = @yanked, seq = @seq WHERE ${KEY} AND version = @version`,
    ),
    nextSeq: db.prepare<[], { value: number }>(
      `UPDATE index_seq SET value = value + 1 WHERE id = 1 RETURNING value`,
    ),
    listIndex: db.prepare<KeyParams, IndexRow>(
      `SELECT ${INDEX_COLUMNS} FROM versions WHERE ${KEY} ORDER BY published_at, id`,
    ),
    search: db.prepare<SearchParams, SearchRow>(
      searchSql({
        kind: '@kind',
        itemType: '@itemType',
        namespace: '@namespace',
        pattern: '@pattern',
        limit: '@limit',
        byteOrder: '',
      }),
    ),
    // UNION (not UNION ALL): a blob several versions share is counted once.
    namespaceBytes: db.prepare<{ readonly namespace: string }, { bytes: number }>(
      `SELECT COALESCE(SUM(size), 0) AS bytes FROM (
  SELECT blob_sha256 AS sha256, size FROM versions WHERE namespace = @namespace
  UNION
  SELECT f.sha256, f.size FROM bundle_files f JOIN versions v ON v.id = f.version_id
  WHERE v.namespace = @namespace
) AS used`,
    ),
  };
}
