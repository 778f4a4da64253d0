import { isRyeError, type ErrorCode } from '../errors/index.js';
import {
  verifyTextAsync,
  type Coverage,
  type TrustSet,
  type VerifyResult,
} from '../integrity/index.js';
import type { ItemType } from '../items/index.js';
import { decodeText, mapLimit } from '../platform/index.js';
import { readItemBytes } from './extract.js';
import { statement, withIndex, type CatalogDb } from './index-db.js';
import type { CatalogVerdict } from './types.js';

/** The index columns a verdict is computed from and cached in. */
export interface VerdictRow {
  readonly id: number;
  readonly path: string;
  readonly item_type: ItemType;
  readonly item_id: string;
  readonly extension: string;
  readonly sha256: string | null;
  readonly verdict: CatalogVerdict | null;
  readonly verdict_code: ErrorCode | null;
  readonly coverage: Coverage | null;
  readonly verdict_sha256: string | null;
  readonly verdict_trust: string | null;
}

/** One file's verdict. */
export interface FileVerdict {
  readonly verdict: CatalogVerdict;
  /** The verification refusal code; null for ok. */
  readonly code: ErrorCode | null;
  readonly coverage: Coverage | null;
}

/** How many signature checks run at once (they use libuv's thread pool). */
const VERIFY_CONCURRENCY = 16;

/** The catalog's four-way verdict for a verification result. Pure. */
export function catalogVerdictOf(result: VerifyResult): FileVerdict {
  const verdict: CatalogVerdict =
    result.verdict === 'ok'
      ? 'ok'
      : result.verdict === 'unsigned'
        ? 'unsigned'
        : result.verdict === 'untrusted_key'
          ? 'untrusted'
          : 'tampered';
  return { verdict, code: result.ok ? null : result.code, coverage: result.coverage };
}

/**
 * The verdict of every row, by row id. A row's cached verdict counts while
 * its bytes (SHA-256) and the trust digest are those it was computed under;
 * otherwise the file is read, verified as the executor verifies it (the same
 * trust set, its id as the subject of key scopes) and the verdict is cached,
 * unless the bytes changed since the row was indexed. A warm search verifies
 * nothing.
 *
 * @throws RyeError SEARCH_INDEX_FAILED
 */
export async function verdictsOf(
  handle: CatalogDb,
  rows: readonly VerdictRow[],
  trust: TrustSet,
  digest: string,
): Promise<Map<number, FileVerdict>> {
  const out = new Map<number, FileVerdict>();
  const stale: VerdictRow[] = [];
  for (const row of rows) {
    if (
      row.verdict !== null &&
      row.sha256 !== null &&
      row.verdict_sha256 === row.sha256 &&
      row.verdict_trust === digest
    )
      out.set(row.id, { verdict: row.verdict, code: row.verdict_code, coverage: row.coverage });
    else stale.push(row);
  }
  if (stale.length === 0) return out;
  const fresh = await mapLimit(stale, VERIFY_CONCURRENCY, (row) => verifyRow(row, trust));
  withIndex(handle, () =>
    handle.db
      .transaction(() => {
        for (const [i, row] of stale.entries()) {
          const { verdict, sha256 } = fresh[i] as { verdict: FileVerdict; sha256: string | null };
          out.set(row.id, verdict);
          if (sha256 === null || sha256 !== row.sha256) continue;
          statement(
            handle,
            `UPDATE files SET verdict = ?, verdict_code = ?, coverage = ?, verdict_sha256 = ?,
              verdict_trust = ? WHERE id = ? AND sha256 = ?`,
          ).run(verdict.verdict, verdict.code, verdict.coverage, sha256, digest, row.id, sha256);
        }
      })
      .immediate(),
  );
  return out;
}

async function verifyRow(
  row: VerdictRow,
  trust: TrustSet,
): Promise<{ verdict: FileVerdict; sha256: string | null }> {
  const read = readItemBytes(row.path);
  if (read.bytes === null)
    return { verdict: { verdict: 'tampered', code: read.code, coverage: null }, sha256: null };
  let text: string;
  try {
    text = decodeText(read.bytes, row.path);
  } catch (error) {
    if (!isRyeError(error)) throw error;
    return {
      verdict: { verdict: 'tampered', code: error.code, coverage: null },
      sha256: read.sha256,
    };
  }
  const result = await verifyTextAsync(text, {
    itemType: row.item_type,
    extension: row.extension,
    trust,
    path: row.path,
    subject: { itemId: row.item_id, itemType: row.item_type },
  });
  return { verdict: catalogVerdictOf(result), sha256: read.sha256 };
}
