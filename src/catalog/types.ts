import type { ErrorCode } from '../errors/index.js';
import type { TrustSet } from '../integrity/index.js';
import type { ItemType, SpaceName } from '../items/index.js';

/**
 * What a search or listing says about an item's signature, so a result never
 * hides that using the item would be refused: `tampered` covers a hash or
 * signature mismatch, a malformed signature line and bytes that cannot be
 * checked at all (binary, over the size cap); the exact reason is `code`.
 */
export type CatalogVerdict = 'ok' | 'unsigned' | 'tampered' | 'untrusted';

/** The authority filter: true when the caller may see (search) or read (load) this item. */
export type Visible = (itemType: ItemType, itemId: string) => boolean;

/**
 * Called when `visible` refuses a load; it must throw (the thread layer throws
 * CAPABILITY_DENIED naming the capability that would allow the call).
 */
export type Deny = (verb: 'load', itemType: ItemType, itemId: string) => never;

/** Where the catalog looks: the three spaces, the cache and the trust to verify with. */
export interface CatalogScope {
  /** The project folder (relative to `cwd`). */
  readonly project: string;
  /** RYE_USER_SPACE, RYE_SYSTEM_SPACE and RYE_CACHE_DIR are read here; default `process.env`. */
  readonly env?: NodeJS.ProcessEnv;
  /** Default `process.cwd()`. */
  readonly cwd?: string;
  /** Verify with this trust set instead of loading the trust stores as the executor does. */
  readonly trust?: TrustSet;
}

/** One search hit. */
export interface SearchResult {
  readonly item_type: ItemType;
  readonly item_id: string;
  readonly space: SpaceName;
  readonly path: string;
  readonly version: string | null;
  readonly title: string | null;
  readonly description: string | null;
  readonly category: string | null;
  readonly verdict: CatalogVerdict;
  /**
   * The code `loadItem` would refuse this item with (the verification code,
   * INTEGRITY_PARTIAL_COVERAGE, ITEM_AMBIGUOUS, METADATA_PARSE_FAILED,
   * LOAD_IDENTITY_MISMATCH, …), or null when it loads.
   */
  readonly code: ErrorCode | null;
  /** True when a file in a higher-precedence space has the same id (only with a `space` filter). */
  readonly shadowed: boolean;
  /** Relevance, higher is better (negated FTS5 bm25); 0 for an empty query. */
  readonly score: number;
  /** Matching text with the matched words in `**`; '' for an empty query. */
  readonly snippet: string;
}

/** One listed item. */
export interface ListedItem {
  readonly item_type: ItemType;
  readonly item_id: string;
  readonly space: SpaceName;
  readonly path: string;
  readonly version: string | null;
  readonly title: string | null;
  readonly verdict: CatalogVerdict;
  readonly code: ErrorCode | null;
  readonly shadowed: boolean;
}

/** A loaded item: verified content and its parsed metadata. */
export interface LoadedItem {
  readonly item_type: ItemType;
  readonly item_id: string;
  readonly space: SpaceName;
  readonly path: string;
  readonly version: string | null;
  /** The verified text, signature line removed, newlines normalised to LF. */
  readonly content: string;
  readonly metadata: Readonly<Record<string, unknown>>;
  readonly verdict: 'ok';
  /** `xml-only` only when the caller allowed it (`allowXmlOnly`); tools and knowledge: `full`. */
  readonly coverage: 'full' | 'xml-only';
}
