import type { CodeTable } from './code-table.js';

/** Catalog: search, load and list over the three spaces. */
export const CATALOG_CODES = {
  SEARCH_QUERY_TOO_LONG: {
    class: 'usage',
    hint: 'Search queries are capped at 1 KiB (UTF-8) and 32 words; shorten the query.',
  },
  SEARCH_INDEX_FAILED: {
    class: 'failure',
    hint: 'The search index under <cache>/search (RYE_CACHE_DIR, default <user>/.ai/cache) could not be opened or written; check that folder. The index is a cache: deleting it is safe.',
  },
  LOAD_IDENTITY_MISMATCH: {
    class: 'integrity',
    hint: 'The item is signed as another id (its declared name or category is not where it was found): a signed file copied over another id is refused.',
  },
} as const satisfies CodeTable;
