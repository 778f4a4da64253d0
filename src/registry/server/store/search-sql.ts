import type { SearchQuery } from './types.js';

/** How one backend spells the search parameters and a byte-order collation. */
export interface SearchDialect {
  readonly kind: string;
  readonly itemType: string;
  readonly namespace: string;
  readonly pattern: string;
  readonly limit: string;
  /** A clause making ORDER BY compare code points (SQLite's default BINARY already does). */
  readonly byteOrder: string;
}

/** The search parameters, in the order PostgreSQL numbers them ($1..$5). */
export interface SearchParams {
  readonly kind: string | null;
  readonly itemType: string | null;
  readonly namespace: string | null;
  readonly pattern: string;
  readonly limit: number;
}

export const MAX_SEARCH_LIMIT = 200;

/**
 * One hit per package: its newest non-yanked version (by published time, then
 * insertion) and the count of non-yanked versions. Packages whose versions are
 * all yanked have no live rows and drop out. The text matches the newest
 * version's search text, whose description is the one the hit shows.
 */
export function searchSql(d: SearchDialect): string {
  return `WITH live AS (
  SELECT kind, item_type, namespace, item_id, version, description, published_at, search_text,
    ROW_NUMBER() OVER (PARTITION BY kind, item_type, namespace, item_id
      ORDER BY published_at${d.byteOrder} DESC, id DESC) AS recency,
    COUNT(*) OVER (PARTITION BY kind, item_type, namespace, item_id) AS live_count
  FROM versions
  WHERE NOT yanked
    AND (${d.kind} IS NULL OR kind = ${d.kind})
    AND (${d.itemType} IS NULL OR item_type = ${d.itemType})
    AND (${d.namespace} IS NULL OR namespace = ${d.namespace})
)
SELECT kind, item_type AS "itemType", namespace, item_id AS "itemId", live_count AS "liveCount",
  version AS "latestPublished", description, published_at AS "publishedAt"
FROM live
WHERE recency = 1 AND search_text LIKE ${d.pattern} ESCAPE '\\'
ORDER BY namespace${d.byteOrder}, item_id${d.byteOrder}, kind, item_type
LIMIT ${d.limit}`;
}

/**
 * The query's parameters. The user's text is a literal substring: LIKE's
 * wildcards (and the escape character itself) are escaped, and the text is
 * lowercased the same way the stored search text was.
 */
export function searchParams(query: SearchQuery): SearchParams {
  const escaped = query.text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`);
  const limit = Math.min(Math.max(Math.trunc(query.limit) || 1, 1), MAX_SEARCH_LIMIT);
  return {
    kind: query.kind ?? null,
    itemType: query.itemType ?? null,
    namespace: query.namespace ?? null,
    pattern: `%${escaped}%`,
    limit,
  };
}
