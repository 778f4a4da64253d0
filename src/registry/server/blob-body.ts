import type { Context } from 'hono';
import { RyeError } from '../../errors/index.js';
import { hexDigestsEqual, sha256Hasher } from '../../integrity/index.js';
import { tooLarge } from './errors.js';

/**
 * UNTRUSTED INPUT: a blob upload's body, read chunk by chunk. Each chunk is
 * counted against `maxBytes` (the read stops at the first byte over, whatever
 * Content-Length claimed) and fed to the hash as it arrives, so no single
 * step hashes a large buffer on the request thread, and bytes that do not
 * match their address are refused before the store sees them.
 *
 * @throws RyeError REGISTRY_BODY_TOO_LARGE, REGISTRY_BLOB_HASH_MISMATCH
 */
export async function readBlobBody(c: Context, sha256: string, maxBytes: number): Promise<Buffer> {
  const hash = sha256Hasher();
  const chunks: Uint8Array[] = [];
  let size = 0;
  const body = c.req.raw.body;
  if (body !== null) {
    const reader = body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        await reader.cancel().catch(() => undefined);
        throw tooLarge('the blob', maxBytes);
      }
      hash.update(value);
      chunks.push(value);
    }
  }
  const actual = hash.hex();
  if (!hexDigestsEqual(actual, sha256)) {
    throw new RyeError(
      'REGISTRY_BLOB_HASH_MISMATCH',
      `Cannot store blob ${sha256}: the bytes hash to ${actual}`,
      { sha256, actual, algorithm: 'sha256' },
    );
  }
  return Buffer.concat(chunks, size);
}
