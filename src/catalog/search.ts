import { RyeError } from '../errors/index.js';
import type { ItemType } from '../items/index.js';
import { fileRows, parseFilter, refusalCode, type ItemFilter } from './catalog-rows.js';
import { statement, withIndex, type CatalogDb } from './index-db.js';
import { openCatalog, type Catalog } from './open-catalog.js';
import { parseSearchQuery } from './query.js';
import { refreshServed, syncIndex, type Recheck } from './sync.js';
import type { CatalogScope, SearchResult, Visible } from './types.js';
import { verdictsOf } from './verdicts.js';

/** Results returned when no limit is given, and the most a caller may ask for. */
export const DEFAULT_SEARCH_LIMIT = 20;
export const MAX_SEARCH_LIMIT = 100;

export interface SearchOptions extends CatalogScope {
  /** Untrusted text: words (all must match), a trailing `*` for a prefix; blank lists by id. */
  readonly query: string;
  readonly item_type?: string;
  /** Only this space's files, shadowed ones included (marked); default: the file each id resolves to. */
  readonly space?: string;
  readonly limit?: number;
  /** The authority filter: rejected items are skipped, never reported nor counted. */
  readonly visible: Visible;
  /**
   * How much of the disk is checked first (docs/search.md, "Freshness"):
   * `auto` (default), `all` (every file: exact recall at any size), or
   * `served` (folders and the rows returned only). Served rows are always checked.
   */
  readonly recheck?: Recheck;
}

/**
 * Search the items of the three spaces, best match first. The query is
 * checked before anything else (SEARCH_QUERY_TOO_LONG costs no I/O); then the
 * index is brought up to date with the folders on disk (adds, removes,
 * renames; every file too when `recheck` says so), and every row about to be
 * returned is checked against its file: one that changed is re-read and the
 * query runs again, so an edited item is never served stale. Ranking is FTS5 bm25 with the id and title weighted above the
 * body (see BM25_WEIGHTS). Items `visible` rejects are skipped before they
 * count toward `limit`, and nothing of them (snippet, score, count) is
 * returned. Each result carries its verdict, computed with the real
 * verification and cached by (content, trust digest).
 *
 * @throws RyeError SEARCH_QUERY_TOO_LONG, ITEM_TYPE_INVALID, SPACE_INVALID,
 *   USAGE_INVALID_ARGUMENT (limit outside 1..100, an unknown `recheck`, no `visible`),
 *   SEARCH_INDEX_FAILED
 */
export async function searchItems(options: SearchOptions): Promise<SearchResult[]> {
  const query = parseSearchQuery(options.query);
  const filter = parseFilter(options.item_type, options.space, options.visible, 'search');
  const limit = parseLimit(options.limit);
  const recheck = parseRecheck(options.recheck);
  if (query.matchesNothing) return [];
  const catalog = await openCatalog(options, recheck);
  const { handle } = catalog;
  const picked = await pickFresh(catalog, query.match, filter, limit, options.visible);
  const rows = fileRows(
    handle,
    picked.map((p) => p.id),
  );
  const verdicts = await verdictsOf(handle, rows, catalog.trust, catalog.digest);
  const rank = new Map(picked.map((p) => [p.id, p.rank] as const));
  return rows.map((row): SearchResult => {
    const verdict = verdicts.get(row.id) ?? { verdict: 'tampered', code: null, coverage: null };
    return {
      item_type: row.item_type,
      item_id: row.item_id,
      space: row.space,
      path: row.path,
      version: row.version,
      title: row.title,
      description: row.description,
      category: row.category,
      verdict: verdict.verdict,
      code: refusalCode(row, verdict),
      shadowed: row.shadowed === 1,
      score: query.match === null ? 0 : -(rank.get(row.id) ?? 0),
      snippet: query.match === null ? '' : snippetOf(handle, query.match, row.id),
    };
  });
}

/** Rounds of "check the rows picked, re-index what changed, pick again" before a full check. */
const MAX_SERVED_ROUNDS = 4;

/**
 * The rows to serve, each checked against its file in this call: rows picked
 * and not yet checked are `lstat`ed (`refreshServed`); when one changed, the
 * query runs again, since its rank or match may have moved. After
 * MAX_SERVED_ROUNDS rounds of changes (files changing under the search),
 * every file is checked and the query runs once more.
 */
async function pickFresh(
  { handle, spaces }: Catalog,
  match: string | null,
  filter: ItemFilter,
  limit: number,
  visible: Visible,
): Promise<Picked[]> {
  const checked = new Set<number>();
  for (let round = 0; round < MAX_SERVED_ROUNDS; round += 1) {
    const picked = pick(handle, match, filter, limit, visible);
    const unchecked = picked.map((p) => p.id).filter((id) => !checked.has(id));
    if (unchecked.length === 0) return picked;
    const changed = await refreshServed(handle, unchecked);
    for (const id of unchecked) checked.add(id);
    if (changed === 0) return picked;
  }
  await syncIndex(handle, spaces, 'all');
  return pick(handle, match, filter, limit, visible);
}

/** @throws RyeError USAGE_INVALID_ARGUMENT */
function parseRecheck(recheck: string | undefined): Recheck {
  if (recheck === undefined || recheck === 'auto' || recheck === 'all' || recheck === 'served')
    return recheck ?? 'auto';
  throw new RyeError(
    'USAGE_INVALID_ARGUMENT',
    'Cannot search: recheck must be auto, all or served',
    {
      recheck: String(recheck).slice(0, 40),
    },
  );
}

/** @throws RyeError USAGE_INVALID_ARGUMENT */
function parseLimit(limit: number | undefined): number {
  if (limit === undefined) return DEFAULT_SEARCH_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_SEARCH_LIMIT) {
    throw new RyeError(
      'USAGE_INVALID_ARGUMENT',
      `Cannot search: limit must be an integer from 1 to ${MAX_SEARCH_LIMIT}`,
      { limit: String(limit).slice(0, 40) },
    );
  }
  return limit;
}

const MATCHES = `SELECT f.id AS id, f.item_type AS item_type, f.item_id AS item_id, fts.rank AS rank
  FROM fts JOIN files f ON f.id = fts.rowid
  WHERE fts MATCH @match AND (@type IS NULL OR f.item_type = @type)
    AND (CASE WHEN @space IS NULL THEN f.shadowed = 0 ELSE f.space = @space END)
  ORDER BY fts.rank, f.item_type, f.item_id, f.space_rank
  LIMIT @page OFFSET @offset`;
const BY_ID = `SELECT id, item_type, item_id, 0 AS rank FROM files f
  WHERE (@type IS NULL OR f.item_type = @type)
    AND (CASE WHEN @space IS NULL THEN f.shadowed = 0 ELSE f.space = @space END)
  ORDER BY f.item_type, f.item_id, f.space_rank
  LIMIT @page OFFSET @offset`;

interface Picked {
  readonly id: number;
  readonly item_type: ItemType;
  readonly item_id: string;
  readonly rank: number;
}

/**
 * The first `limit` rows, in rank order, that `visible` accepts, read a page
 * at a time (not all rows; and not with `iterate()`, whose native iterator
 * aborts Node 24 when collected: see platform/sqlite.ts).
 */
function pick(
  handle: CatalogDb,
  match: string | null,
  filter: ItemFilter,
  limit: number,
  visible: Visible,
): Picked[] {
  return withIndex(handle, () => {
    const out: Picked[] = [];
    const rows = statement(handle, match === null ? BY_ID : MATCHES);
    const params = {
      type: filter.itemType,
      space: filter.space,
      ...(match === null ? {} : { match }),
    };
    const page = Math.max(limit * 2, 64);
    for (let offset = 0; out.length < limit; offset += page) {
      const batch = rows.all({ ...params, page, offset }) as Picked[];
      for (const row of batch) {
        if (!visible(row.item_type, row.item_id)) continue;
        out.push(row);
        if (out.length >= limit) break;
      }
      if (batch.length < page) break;
    }
    return out;
  });
}

/** The snippet of one result, computed only for rows returned. */
function snippetOf(handle: CatalogDb, match: string, id: number): string {
  return withIndex(handle, () => {
    // The CAST matters: with MATCH, FTS5 ignores a rowid constraint bound as a
    // REAL (better-sqlite3 binds every JS number as one) and returns every match.
    const row = statement(
      handle,
      `SELECT snippet(fts, -1, '**', '**', '…', 16) AS snippet FROM fts
        WHERE fts MATCH ? AND rowid = CAST(? AS INTEGER)`,
    ).get(match, id) as { snippet: string | null } | undefined;
    // One line: the text's own line breaks would break a result's layout.
    return (row?.snippet ?? '').replace(/\s+/g, ' ').trim();
  });
}
