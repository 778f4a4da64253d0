export { enumerateItemFiles } from './enumerate.js';
export type { ItemFile } from './enumerate.js';
export { BM25_WEIGHTS, closeCatalogDbs } from './index-db.js';
export { searchIndexPath } from './index-path.js';
export { RACY_WINDOW_NS } from './racy.js';
export type { RefreshStats } from './refresh.js';
export { FULL_CHECK_EVERY_NS, FULL_CHECK_FILES } from './sync.js';
export type { Recheck } from './sync.js';
export { openCatalog } from './open-catalog.js';
export type { Catalog } from './open-catalog.js';
export { MAX_QUERY_BYTES, MAX_QUERY_TERMS, parseSearchQuery } from './query.js';
export type { ParsedQuery } from './query.js';
export { DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT, searchItems } from './search.js';
export type { SearchOptions } from './search.js';
export { listItems } from './list.js';
export type { ListOptions } from './list.js';
export { loadItem } from './load.js';
export type { LoadOptions } from './load.js';
export { DEFAULT_LOAD_CACHE, LoadCache } from './load-cache.js';
export { METADATA_READERS } from './metadata-readers.js';
export type { ItemSummary, MetadataReader, MetadataReading } from './metadata-readers.js';
export { trustDigest } from './trust-digest.js';
export { catalogVerdictOf } from './verdicts.js';
export type {
  CatalogScope,
  CatalogVerdict,
  Deny,
  ListedItem,
  LoadedItem,
  SearchResult,
  Visible,
} from './types.js';
