import { createHash, timingSafeEqual } from 'node:crypto';

// One-shot hashing with a fallback for older Node: a platform shim, shared with the CLI's entry.
export { sha256Bytes, sha256Hex } from '../platform/index.js';

/** An incremental SHA-256, for content streamed in chunks. */
export interface Sha256Hasher {
  update(chunk: Uint8Array): void;
  /** The lowercase hex digest; call once, after the last update. */
  hex(): string;
}

export function sha256Hasher(): Sha256Hasher {
  const hash = createHash('sha256');
  return {
    update: (chunk) => void hash.update(chunk),
    hex: () => hash.digest('hex'),
  };
}

/**
 * Text as it is hashed: CRLF and lone CR become LF, so a file checked out with
 * either line ending verifies the same (the Python implementation read files in
 * universal-newline mode).
 */
export function normalizeNewlines(text: string): string {
  return text.includes('\r') ? text.replace(/\r\n?/g, '\n') : text;
}

/** Where {@link hexDigestsEqual} writes both digests (bundle verify compares 10,000s). */
let scratch = Buffer.alloc(256);

/** Constant-time comparison of two hex digests of equal length. */
export function hexDigestsEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  if (scratch.length < 2 * a.length) scratch = Buffer.alloc(2 * a.length);
  // latin1: one byte per UTF-16 unit (its low byte), as Buffer.from(…, 'latin1') does.
  const n = scratch.write(a, 0, 'latin1');
  scratch.write(b, n, 'latin1');
  return timingSafeEqual(scratch.subarray(0, n), scratch.subarray(n, 2 * n));
}
