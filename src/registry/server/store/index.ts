export { openStore } from './open-store.js';
export type { OpenStoreOptions } from './open-store.js';
export { openPostgresStore } from './postgres-store.js';
export { openSqliteStore } from './sqlite-store.js';
export { MAX_SEARCH_LIMIT } from './search-sql.js';
export type {
  Account,
  AuthorKeyRecord,
  BundleFileRecord,
  PackageIndexState,
  PackageKey,
  PublishOutcome,
  PublishedItemType,
  PublishedKind,
  RegistryStore,
  SearchHit,
  SearchQuery,
  TokenRecord,
  VersionRecord,
  VersionSummary,
} from './types.js';
