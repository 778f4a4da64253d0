/**
 * The registry schema as numbered migrations, one SQL text per backend. A
 * migration is applied once, in order, each in its own transaction, and
 * recorded in `schema_migrations`; published migrations are never edited, only
 * followed by new ones.
 *
 * Both backends keep the same tables and columns: `item_type` is '' for
 * bundles (NULL would defeat the unique key), times are the ISO strings the
 * server passes in (text, so they round-trip byte for byte), and
 * `versions.search_text` is the lowercased `namespace\nitem_id\ndescription`
 * computed in JavaScript, so case-insensitive search folds the same way on
 * both backends.
 */
export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sqlite: string;
  readonly postgres: string;
}

/** The bookkeeping table, created before any migration runs. */
export const MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS schema_migrations (
  version integer PRIMARY KEY,
  applied_at text NOT NULL
)`;

const initialSqlite = `
CREATE TABLE accounts (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  username TEXT NOT NULL UNIQUE,
  password_hash TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE TABLE tokens (
  token_id TEXT PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES accounts(id),
  token_hash TEXT NOT NULL UNIQUE,
  created_at TEXT NOT NULL,
  revoked_at TEXT
);
CREATE INDEX tokens_by_account ON tokens(account_id);
CREATE TABLE author_keys (
  fingerprint TEXT PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES accounts(id),
  public_key TEXT NOT NULL,
  added_at TEXT NOT NULL
);
CREATE INDEX author_keys_by_account ON author_keys(account_id);
CREATE TABLE versions (
  id INTEGER PRIMARY KEY,
  kind TEXT NOT NULL CHECK (kind IN ('item', 'bundle')),
  item_type TEXT NOT NULL,
  namespace TEXT NOT NULL,
  item_id TEXT NOT NULL,
  version TEXT NOT NULL,
  extension TEXT,
  content_hash TEXT NOT NULL,
  blob_sha256 TEXT NOT NULL,
  size INTEGER NOT NULL,
  author_fingerprint TEXT NOT NULL,
  author_signature TEXT NOT NULL,
  statement TEXT NOT NULL,
  statement_signature TEXT NOT NULL,
  description TEXT,
  search_text TEXT NOT NULL,
  published_at TEXT NOT NULL,
  yanked INTEGER NOT NULL DEFAULT 0,
  UNIQUE (kind, item_type, namespace, item_id, version)
);
CREATE INDEX versions_by_package ON versions(kind, item_type, namespace, item_id, published_at, id);
CREATE INDEX versions_by_namespace ON versions(namespace, item_id);
CREATE TABLE bundle_files (
  version_id INTEGER NOT NULL REFERENCES versions(id),
  path TEXT NOT NULL,
  sha256 TEXT NOT NULL,
  size INTEGER NOT NULL,
  PRIMARY KEY (version_id, path)
) WITHOUT ROWID;
`;

const initialPostgres = `
CREATE TABLE accounts (
  id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  username text NOT NULL UNIQUE,
  password_hash text NOT NULL,
  created_at text NOT NULL
);
CREATE TABLE tokens (
  token_id text PRIMARY KEY,
  account_id integer NOT NULL REFERENCES accounts(id),
  token_hash text NOT NULL UNIQUE,
  created_at text NOT NULL,
  revoked_at text
);
CREATE INDEX tokens_by_account ON tokens(account_id);
CREATE TABLE author_keys (
  fingerprint text PRIMARY KEY,
  account_id integer NOT NULL REFERENCES accounts(id),
  public_key text NOT NULL,
  added_at text NOT NULL
);
CREATE INDEX author_keys_by_account ON author_keys(account_id);
CREATE TABLE blobs (
  sha256 text PRIMARY KEY,
  size bigint NOT NULL,
  data bytea NOT NULL
);
CREATE TABLE versions (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  kind text NOT NULL CHECK (kind IN ('item', 'bundle')),
  item_type text NOT NULL,
  namespace text NOT NULL,
  item_id text NOT NULL,
  version text NOT NULL,
  extension text,
  content_hash text NOT NULL,
  blob_sha256 text NOT NULL,
  size bigint NOT NULL,
  author_fingerprint text NOT NULL,
  author_signature text NOT NULL,
  statement text NOT NULL,
  statement_signature text NOT NULL,
  description text,
  search_text text NOT NULL,
  published_at text NOT NULL,
  yanked boolean NOT NULL DEFAULT false,
  UNIQUE (kind, item_type, namespace, item_id, version)
);
CREATE INDEX versions_by_package ON versions(kind, item_type, namespace, item_id, published_at, id);
CREATE INDEX versions_by_namespace ON versions(namespace COLLATE "C", item_id COLLATE "C");
CREATE TABLE bundle_files (
  version_id bigint NOT NULL REFERENCES versions(id),
  path text NOT NULL,
  sha256 text NOT NULL,
  size bigint NOT NULL,
  PRIMARY KEY (version_id, path)
);
`;

/**
 * The signed package index (package-index.ts): every publish and yank takes the
 * next value of one server-wide counter (a single row, locked by the writer
 * until it commits, so values follow commit order) and stamps it on the
 * version row; a package's index `seq` is the largest stamp among its rows.
 * Rows published before this migration count as changed at 1.
 */
const indexSeqSqlite = `
ALTER TABLE versions ADD COLUMN seq INTEGER NOT NULL DEFAULT 1;
CREATE TABLE index_seq (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  value INTEGER NOT NULL
);
INSERT INTO index_seq (id, value) VALUES (1, 1);
`;

const indexSeqPostgres = `
ALTER TABLE versions ADD COLUMN seq bigint NOT NULL DEFAULT 1;
CREATE TABLE index_seq (
  id integer PRIMARY KEY CHECK (id = 1),
  value bigint NOT NULL
);
INSERT INTO index_seq (id, value) VALUES (1, 1);
`;

/**
 * `rye registry keys remove` (issue 12): a removed author key no longer signs
 * new pushes, but its row stays: the versions it signed are still served with
 * its public key, and its fingerprint stays bound to the account (nobody else
 * can register it). Registering it again clears the mark.
 */
const keyRemovalSqlite = `ALTER TABLE author_keys ADD COLUMN removed_at TEXT;`;
const keyRemovalPostgres = `ALTER TABLE author_keys ADD COLUMN removed_at text;`;

/** Every migration, oldest first. */
export const MIGRATIONS: readonly Migration[] = [
  { version: 1, name: 'initial schema', sqlite: initialSqlite, postgres: initialPostgres },
  { version: 2, name: 'package index seq', sqlite: indexSeqSqlite, postgres: indexSeqPostgres },
  {
    version: 3,
    name: 'author key removal',
    sqlite: keyRemovalSqlite,
    postgres: keyRemovalPostgres,
  },
];
