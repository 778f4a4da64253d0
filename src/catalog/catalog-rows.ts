import { RyeError, type ErrorCode } from '../errors/index.js';
import { parseItemType, parseSpaceName, type ItemType, type SpaceName } from '../items/index.js';
import { statement, withIndex, type CatalogDb } from './index-db.js';
import type { FileVerdict, VerdictRow } from './verdicts.js';
import type { Visible } from './types.js';

/** A file's index row, as results are built from it. */
export interface FileRow extends VerdictRow {
  readonly space: SpaceName;
  readonly version: string | null;
  readonly title: string | null;
  readonly description: string | null;
  readonly category: string | null;
  readonly problem: ErrorCode | null;
  readonly shadowed: 0 | 1;
  readonly ambiguous: 0 | 1;
}

/** The columns of a {@link FileRow}. */
export const FILE_COLUMNS = `id, path, item_type, item_id, space, extension, sha256, version, title,
  description, category, problem, shadowed, ambiguous, verdict, verdict_code, coverage,
  verdict_sha256, verdict_trust`;

/** The rows of these ids, in the same order. */
export function fileRows(handle: CatalogDb, ids: readonly number[]): FileRow[] {
  return withIndex(handle, () => {
    const select = statement(handle, `SELECT ${FILE_COLUMNS} FROM files WHERE id = ?`);
    return ids.map((id) => select.get(id) as FileRow | undefined).filter((r) => r !== undefined);
  });
}

/**
 * The code `loadItem` would refuse a file with, in the order it checks:
 * resolution (two files for one id), the signature, coverage, then the
 * content (metadata, identity); null when it loads.
 */
export function refusalCode(row: FileRow, verdict: FileVerdict): ErrorCode | null {
  if (row.ambiguous === 1) return 'ITEM_AMBIGUOUS';
  if (verdict.verdict !== 'ok') return verdict.code ?? 'INTERNAL_ERROR';
  if (verdict.coverage === 'xml-only') return 'INTEGRITY_PARTIAL_COVERAGE';
  return row.problem;
}

/** Filters shared by search and list, checked before any work. */
export interface ItemFilter {
  readonly itemType: ItemType | null;
  readonly space: SpaceName | null;
}

/**
 * Check the type and space filters and the authority filter.
 * @throws RyeError ITEM_TYPE_INVALID, SPACE_INVALID, USAGE_INVALID_ARGUMENT
 */
export function parseFilter(
  itemType: string | undefined,
  space: string | undefined,
  visible: Visible | undefined,
  what: string,
): ItemFilter {
  // Fail closed: without an authority filter nothing could be shown safely.
  if (typeof visible !== 'function') {
    throw new RyeError('USAGE_INVALID_ARGUMENT', `Cannot ${what}: no visibility filter given`, {});
  }
  return {
    itemType: itemType === undefined ? null : parseItemType(itemType),
    space: space === undefined ? null : parseSpaceName(space),
  };
}
