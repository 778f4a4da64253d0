import type { VerifyResult } from '../integrity/index.js';
import type { ResolvedItem } from '../items/index.js';

/** The JSON document of one verification (verify-file's conformance shape, plus evidence). */
export function verifyResultJson(
  result: VerifyResult,
  item?: ResolvedItem,
): Record<string, unknown> {
  return {
    ok: result.ok,
    verdict: result.verdict,
    code: result.code,
    path: result.path,
    item_type: result.itemType,
    ...(item === undefined ? {} : { item_id: item.itemId, space: item.space }),
    fingerprint: result.fingerprint,
    content_hash: result.contentHash,
    coverage: result.coverage,
    provenance: result.provenance,
    actual_hash: result.actualHash,
    timestamp: result.timestamp,
    signer: result.signer,
    line: result.line,
    message: result.message,
  };
}

/** The human lines of a verification: one when it passed, two when it failed (the reason). */
export function verifyResultLines(result: VerifyResult, label: string): string[] {
  if (result.ok) {
    const partial =
      result.coverage === 'xml-only' ? '  (warning: only the <directive> span is signed)' : '';
    return [`ok        ${label}  ${result.fingerprint ?? ''} ${result.signer ?? ''}${partial}`];
  }
  return [
    `${result.verdict.padEnd(9)} ${label}`,
    `          ${result.code ?? ''}: ${result.message}`,
  ];
}
