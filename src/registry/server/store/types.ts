/**
 * The registry's persistence, behind one interface with two implementations:
 * SQLite + a content-addressed blob folder (the embedded default) and
 * PostgreSQL (everything, blobs included, in the database, so several server
 * instances can share it). The store keeps rows and bytes; every policy
 * (who may publish what, signatures, attestation) lives in the server above it.
 */

/** What a published version is: a single item, or a bundle (manifest + files). */
export type PublishedKind = 'item' | 'bundle';

/** `directive`, `tool` or `knowledge` for items; null for bundles. */
export type PublishedItemType = 'directive' | 'tool' | 'knowledge';

export interface Account {
  readonly id: number;
  readonly username: string;
  /** `scrypt$N$r$p$salt_b64$hash_b64`, produced by the server's accounts module. */
  readonly passwordHash: string;
  readonly createdAt: string;
}

export interface TokenRecord {
  /** Public token id (16 hex), shown to the user and used to revoke. */
  readonly tokenId: string;
  readonly accountId: number;
  readonly username: string;
  readonly createdAt: string;
  /** ISO time the token was revoked, or null while it is valid. */
  readonly revokedAt: string | null;
}

export interface AuthorKeyRecord {
  readonly fingerprint: string;
  /** SPKI PEM text, with its final newline. */
  readonly publicKey: string;
  readonly accountId: number;
  readonly username: string;
  readonly addedAt: string;
  /** ISO time the account removed the key (it signs no new push), or null while it is active. */
  readonly removedAt: string | null;
}

/** One file of a published bundle. */
export interface BundleFileRecord {
  /** Project-relative path, exactly as the manifest lists it. */
  readonly path: string;
  /** SHA-256 hex of the raw bytes; also the blob's address. */
  readonly sha256: string;
  readonly size: number;
}

/** Which published thing: `(kind, itemType, namespace, itemId)`; itemType is null for bundles. */
export interface PackageKey {
  readonly kind: PublishedKind;
  readonly itemType: PublishedItemType | null;
  readonly namespace: string;
  readonly itemId: string;
}

/** One immutable published version, with its attestation. */
export interface VersionRecord extends PackageKey {
  readonly version: string;
  /** Items: the file extension with its dot (`.py`); bundles: null. */
  readonly extension: string | null;
  /** The content hash the signatures cover (the `CONTENT_HASH` of the signature line). */
  readonly contentHash: string;
  /** SHA-256 hex of the stored, registry-signed bytes (item file or manifest); a blob address. */
  readonly blobSha256: string;
  readonly size: number;
  readonly authorFingerprint: string;
  /** The author's signature payload `rye:signed:…` as pushed (without comment markers). */
  readonly authorSignature: string;
  /** The attestation statement, exactly the bytes the registry signed (canonical JSON). */
  readonly statement: string;
  /** base64url Ed25519 signature of `statement` by the registry key. */
  readonly statementSignature: string;
  /** The item's description from its metadata, for search; null when it has none. */
  readonly description: string | null;
  readonly publishedAt: string;
  readonly yanked: boolean;
  /** Bundles: every file the manifest lists, sorted by path. Items: empty. */
  readonly files: readonly BundleFileRecord[];
}

export interface VersionSummary {
  readonly version: string;
  readonly yanked: boolean;
  readonly publishedAt: string;
  readonly contentHash: string;
}

/** What the signed package index is made of: the package's change counter and its versions. */
export interface PackageIndexState {
  /** The largest change counter stamped on the package's rows (0 when it has none). */
  readonly seq: number;
  /** Every version, yanked ones included, oldest first (as listVersions). */
  readonly versions: VersionSummary[];
}

export interface SearchQuery {
  /** Case-insensitive substring matched against item id, namespace and description; empty matches all. */
  readonly text: string;
  readonly kind?: PublishedKind | undefined;
  readonly itemType?: PublishedItemType | undefined;
  readonly namespace?: string | undefined;
  /** 1..200. */
  readonly limit: number;
}

export interface SearchHit extends PackageKey {
  /** Number of published versions that are not yanked. */
  readonly versions: number;
  /** The most recently published version that is not yanked. */
  readonly latestPublished: string;
  readonly description: string | null;
  readonly publishedAt: string;
}

export type PublishOutcome =
  | { readonly status: 'created'; readonly record: VersionRecord }
  /** The same version was already published with the same content hash: idempotent replay. */
  | { readonly status: 'exists'; readonly record: VersionRecord };

export interface RegistryStore {
  readonly backend: 'sqlite' | 'postgres';
  close(): Promise<void>;

  // Accounts. Usernames are unique.
  /** @throws RyeError REGISTRY_USERNAME_TAKEN */
  createAccount(username: string, passwordHash: string, now: string): Promise<Account>;
  findAccount(username: string): Promise<Account | null>;

  // API tokens: only a SHA-256 hex of the secret is stored.
  createToken(accountId: number, tokenId: string, tokenHash: string, now: string): Promise<void>;
  /** The token row for a secret's hash, revoked or not, or null. */
  findToken(tokenHash: string): Promise<TokenRecord | null>;
  /** Revoke one token of an account; false when the account has no such token. */
  revokeToken(accountId: number, tokenId: string, now: string): Promise<boolean>;

  // Author keys: one account per fingerprint, for ever (a removed key stays bound).
  /**
   * @returns 'added' (new, or removed before and active again), or 'exists'
   *   when this account already has it active.
   * @throws RyeError REGISTRY_KEY_TAKEN when another account registered it.
   */
  addKey(
    accountId: number,
    fingerprint: string,
    publicKey: string,
    now: string,
  ): Promise<'added' | 'exists'>;
  /** Every key of the account, removed ones included (`removedAt`), oldest first. */
  listKeys(accountId: number): Promise<AuthorKeyRecord[]>;
  /**
   * Mark one of the account's keys removed (the row stays).
   * @returns 'removed', 'already_removed', or 'not_found' (not this account's key).
   */
  removeKey(
    accountId: number,
    fingerprint: string,
    now: string,
  ): Promise<'removed' | 'already_removed' | 'not_found'>;

  // Content-addressed blobs (raw bytes by SHA-256 hex).
  /**
   * Store bytes under their SHA-256, checked here; idempotent; atomic (never a partial blob).
   * @throws RyeError REGISTRY_BLOB_HASH_MISMATCH, REGISTRY_INVALID_REQUEST
   */
  putBlob(sha256: string, bytes: Buffer): Promise<void>;
  hasBlob(sha256: string): Promise<boolean>;
  /** The first of `sha256s` that is not stored, or null when all are. */
  missingBlob(sha256s: readonly string[]): Promise<string | null>;
  /**
   * The bytes, re-hashed on every read.
   * @throws RyeError REGISTRY_BLOB_CORRUPT when the stored bytes no longer match the address.
   */
  getBlob(sha256: string): Promise<Buffer | null>;
  /** The size of each stored blob among `sha256s` (missing ones absent), without reading the bytes. */
  blobSizes(sha256s: readonly string[]): Promise<Map<string, number>>;
  /**
   * Bytes published in `namespace`: every distinct blob its versions reference
   * (item files, manifests, bundle files), each counted once. Quotas read it.
   */
  namespaceBytes(namespace: string): Promise<number>;

  // Versions.
  /**
   * Publish atomically (the version row, stamped with the next change
   * counter, and every bundle file row in one transaction; the blobs must
   * already be stored). A crash leaves either the
   * whole version or nothing. Two concurrent publishes of one version: one
   * creates, the other sees 'exists' or a conflict.
   *
   * @throws RyeError REGISTRY_VERSION_CONFLICT when the version exists with another content hash.
   * @throws RyeError REGISTRY_BLOB_MISSING when a referenced blob is not stored.
   */
  publish(record: VersionRecord): Promise<PublishOutcome>;
  getVersion(key: PackageKey, version: string): Promise<VersionRecord | null>;
  /** Every version, yanked ones included, oldest first. */
  listVersions(key: PackageKey): Promise<VersionSummary[]>;
  /** The package's versions and its change counter, read in one statement (one snapshot). */
  packageIndex(key: PackageKey): Promise<PackageIndexState>;
  /**
   * Set or clear the yanked flag, stamping the next change counter on the
   * row; false when the version does not exist.
   */
  setYanked(key: PackageKey, version: string, yanked: boolean): Promise<boolean>;
  search(query: SearchQuery): Promise<SearchHit[]>;
}
