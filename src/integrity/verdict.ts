import type { ErrorCode } from '../errors/index.js';
import type { Coverage } from './hashed-content.js';
import type { ItemType } from './signature-formats.js';

/**
 * The outcome of checking one item. `ok`, `unsigned`, `hash_mismatch`,
 * `untrusted_key` and `bad_signature` are the conformance verdicts; `malformed`
 * (a signature line that does not parse, or two of them) and `unreadable`
 * (binary, too large, unsupported, I/O) make sure a failure to check is never
 * reported as unsigned or as success.
 */
export type Verdict =
  | 'ok'
  | 'unsigned'
  | 'hash_mismatch'
  | 'untrusted_key'
  | 'bad_signature'
  | 'malformed'
  | 'unreadable';

export interface VerifyResult {
  readonly ok: boolean;
  readonly verdict: Verdict;
  /** The error code for any verdict but ok (`INTEGRITY_*`, `FILE_*`, …), else null. */
  readonly code: ErrorCode | null;
  /** One sentence in the "Cannot <do>: <why>" style, or a success line. */
  readonly message: string;
  readonly itemType: ItemType;
  readonly path: string | null;
  readonly fingerprint: string | null;
  /** The hash embedded in the signature line. */
  readonly contentHash: string | null;
  /** The hash of the content as it is now (set when it was computed). */
  readonly actualHash: string | null;
  readonly coverage: Coverage | null;
  readonly provenance: string | null;
  readonly timestamp: string | null;
  /** Owner of the trusted key that verified the signature. */
  readonly signer: string | null;
  /** 1-based line of the signature line the verdict is about, when relevant. */
  readonly line: number | null;
}

/** Base fields for a result; verify.ts fills in what it learnt. */
export function emptyResult(itemType: ItemType, path: string | null): VerifyResult {
  return {
    ok: false,
    verdict: 'unreadable',
    code: null,
    message: '',
    itemType,
    path,
    fingerprint: null,
    contentHash: null,
    actualHash: null,
    coverage: null,
    provenance: null,
    timestamp: null,
    signer: null,
    line: null,
  };
}

/**
 * The "why" of a verdict's message, without its "Cannot verify <path>: "
 * opening, for callers that put the reason in a message of their own.
 */
export function verdictReason(result: VerifyResult): string {
  const prefix = `Cannot verify ${result.path ?? `${result.itemType} text`}: `;
  return result.message.startsWith(prefix) ? result.message.slice(prefix.length) : result.message;
}
