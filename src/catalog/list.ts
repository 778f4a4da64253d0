import { FILE_COLUMNS, parseFilter, refusalCode, type FileRow } from './catalog-rows.js';
import { statement, withIndex } from './index-db.js';
import { openCatalog } from './open-catalog.js';
import type { CatalogScope, ListedItem, Visible } from './types.js';
import { verdictsOf } from './verdicts.js';

export interface ListOptions extends CatalogScope {
  readonly item_type?: string;
  /** Only this space's files, shadowed ones included (marked); default: the file each id resolves to. */
  readonly space?: string;
  /** The authority filter (default: everything, the operator's view). */
  readonly visible?: Visible;
}

/**
 * Every item of the three spaces, by type then id: without `space`, the file
 * each id resolves to (project → user → system); with it, every file of that
 * space, those shadowed by a higher-precedence space marked. Each carries its
 * verdict (verified like a search, cached by content and trust digest).
 *
 * @throws RyeError ITEM_TYPE_INVALID, SPACE_INVALID, SEARCH_INDEX_FAILED
 */
export async function listItems(options: ListOptions): Promise<ListedItem[]> {
  const visible = options.visible ?? (() => true);
  const filter = parseFilter(options.item_type, options.space, visible, 'list items');
  // A listing serves every row: every file is checked, as before any search.
  const catalog = await openCatalog(options, 'all');
  const { handle } = catalog;
  const rows = withIndex(handle, () =>
    (
      statement(
        handle,
        `SELECT ${FILE_COLUMNS} FROM files
          WHERE (@type IS NULL OR item_type = @type)
            AND (CASE WHEN @space IS NULL THEN shadowed = 0 ELSE space = @space END)
          ORDER BY item_type, item_id, space_rank`,
      ).all({ type: filter.itemType, space: filter.space }) as FileRow[]
    ).filter((r) => visible(r.item_type, r.item_id)),
  );
  const verdicts = await verdictsOf(handle, rows, catalog.trust, catalog.digest);
  return rows.map((row): ListedItem => {
    const verdict = verdicts.get(row.id) ?? { verdict: 'tampered', code: null, coverage: null };
    return {
      item_type: row.item_type,
      item_id: row.item_id,
      space: row.space,
      path: row.path,
      version: row.version,
      title: row.title,
      verdict: verdict.verdict,
      code: refusalCode(row, verdict),
      shadowed: row.shadowed === 1,
    };
  });
}
