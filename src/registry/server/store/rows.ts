import { compareCodePoints } from '../../../integrity/index.js';
import type {
  BundleFileRecord,
  PackageIndexState,
  PackageKey,
  PublishedItemType,
  PublishedKind,
  SearchHit,
  VersionRecord,
  VersionSummary,
} from './types.js';

/**
 * Row shapes and their mapping to records, shared by both backends. Queries
 * alias columns to camelCase (quoted, so PostgreSQL keeps the case); numbers
 * may arrive as strings (PostgreSQL bigint) and flags as 0/1 (SQLite).
 */

/** The columns of a version row, aliased to {@link VersionRow}. */
export const VERSION_COLUMNS = `id, kind, item_type AS "itemType", namespace, item_id AS "itemId",
  version, extension, content_hash AS "contentHash", blob_sha256 AS "blobSha256", size,
  author_fingerprint AS "authorFingerprint", author_signature AS "authorSignature", statement,
  statement_signature AS "statementSignature", description, published_at AS "publishedAt", yanked`;

export const SUMMARY_COLUMNS = `version, yanked, published_at AS "publishedAt", content_hash AS "contentHash"`;

type SqlNumber = number | string;
type SqlFlag = number | boolean;

export interface VersionRow {
  readonly id: SqlNumber;
  readonly kind: string;
  readonly itemType: string;
  readonly namespace: string;
  readonly itemId: string;
  readonly version: string;
  readonly extension: string | null;
  readonly contentHash: string;
  readonly blobSha256: string;
  readonly size: SqlNumber;
  readonly authorFingerprint: string;
  readonly authorSignature: string;
  readonly statement: string;
  readonly statementSignature: string;
  readonly description: string | null;
  readonly publishedAt: string;
  readonly yanked: SqlFlag;
}

export interface FileRow {
  readonly path: string;
  readonly sha256: string;
  readonly size: SqlNumber;
}

export interface SummaryRow {
  readonly version: string;
  readonly yanked: SqlFlag;
  readonly publishedAt: string;
  readonly contentHash: string;
}

/** The columns of a package index row, aliased to {@link IndexRow}. */
export const INDEX_COLUMNS = `${SUMMARY_COLUMNS}, seq`;

export interface IndexRow extends SummaryRow {
  readonly seq: SqlNumber;
}

export interface SearchRow {
  readonly kind: string;
  readonly itemType: string;
  readonly namespace: string;
  readonly itemId: string;
  readonly liveCount: SqlNumber;
  readonly latestPublished: string;
  readonly description: string | null;
  readonly publishedAt: string;
}

/** A package key as bound in SQL: a null item type is stored as ''. */
export interface KeyParams {
  readonly kind: PublishedKind;
  readonly itemType: string;
  readonly namespace: string;
  readonly itemId: string;
}

export function keyParams(key: PackageKey): KeyParams {
  return {
    kind: key.kind,
    itemType: key.itemType ?? '',
    namespace: key.namespace,
    itemId: key.itemId,
  };
}

function itemTypeFromSql(value: string): PublishedItemType | null {
  return value === '' ? null : (value as PublishedItemType);
}

/** Bundle files in code-point order of their paths (the order manifests use). */
export function filesFromRows(rows: readonly FileRow[]): BundleFileRecord[] {
  return rows
    .map((row) => ({ path: row.path, sha256: row.sha256, size: Number(row.size) }))
    .sort((a, b) => compareCodePoints(a.path, b.path));
}

export function versionFromRow(row: VersionRow, files: BundleFileRecord[]): VersionRecord {
  return {
    kind: row.kind as PublishedKind,
    itemType: itemTypeFromSql(row.itemType),
    namespace: row.namespace,
    itemId: row.itemId,
    version: row.version,
    extension: row.extension,
    contentHash: row.contentHash,
    blobSha256: row.blobSha256,
    size: Number(row.size),
    authorFingerprint: row.authorFingerprint,
    authorSignature: row.authorSignature,
    statement: row.statement,
    statementSignature: row.statementSignature,
    description: row.description,
    publishedAt: row.publishedAt,
    yanked: Boolean(row.yanked),
    files,
  };
}

export function summaryFromRow(row: SummaryRow): VersionSummary {
  return {
    version: row.version,
    yanked: Boolean(row.yanked),
    publishedAt: row.publishedAt,
    contentHash: row.contentHash,
  };
}

/** A package's index state from its rows (oldest first): seq is the largest stamp. */
export function indexFromRows(rows: readonly IndexRow[]): PackageIndexState {
  let seq = 0;
  for (const row of rows) seq = Math.max(seq, Number(row.seq));
  return { seq, versions: rows.map(summaryFromRow) };
}

export function hitFromRow(row: SearchRow): SearchHit {
  return {
    kind: row.kind as PublishedKind,
    itemType: itemTypeFromSql(row.itemType),
    namespace: row.namespace,
    itemId: row.itemId,
    versions: Number(row.liveCount),
    latestPublished: row.latestPublished,
    description: row.description,
    publishedAt: row.publishedAt,
  };
}

/** The lowercased text search matches against (see migrations.ts). */
export function searchTextOf(record: VersionRecord): string {
  return `${record.namespace}\n${record.itemId}\n${record.description ?? ''}`.toLowerCase();
}
