import { z } from 'zod';
import { RyeError, isRyeError } from '../../errors/index.js';
import { signText, verifyText, type Signer, type TrustSet } from '../../integrity/index.js';
import { readTextFile, writeFileAtomic } from '../../platform/index.js';
import { tryParseThreadId } from '../../ids/index.js';
import { redactTokens } from '../transcript/index.js';
import type { ThreadPaths } from './layout.js';

import { THREAD_STATUSES, type ThreadStatus } from './thread-status.js';

export { THREAD_STATUSES, type ThreadStatus };

/** The largest thread.json read (4 MiB): inputs and outputs are JSON a model wrote or read. */
export const MAX_RECORD_BYTES = 4 * 1024 * 1024;

const count = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);
const threadId = z.string().refine((s) => tryParseThreadId(s) !== undefined, 'not a thread id');

/** The shape of `thread.json` (THREADS.md §8), checked after its signature. */
export const threadRecordSchema = z
  .object({
    thread_id: threadId,
    tree: threadId,
    parent: threadId.nullable(),
    depth: count,
    directive: z
      .object({
        id: z.string().min(1),
        space: z.string().min(1),
        content_sha256: z.string().regex(/^[0-9a-f]{64}$/),
        coverage: z.string().min(1),
      })
      .strict(),
    inputs: z.unknown(),
    model: z.unknown(),
    limits: z.record(z.string(), z.unknown()),
    caps: z.array(z.string()),
    caps_dropped: z.array(z.string()),
    token: z.object({ jti: z.string(), exp: count }).strict().nullable(),
    hooks_admitted: z.array(z.unknown()),
    status: z.enum(THREAD_STATUSES),
    created_at: z.string(),
    updated_at: z.string(),
    cost: z
      .object({
        turns: count,
        tokens_in: count,
        tokens_out: count,
        spend_nanos: count,
        tool_calls: count,
        spawns: count,
      })
      .strict(),
    outputs: z.unknown().optional(),
    error: z
      .object({ code: z.string(), message: z.string(), details: z.unknown().optional() })
      .strict()
      .optional(),
  })
  .strict();

export type ThreadRecord = z.infer<typeof threadRecordSchema>;

// The record is signed with the `.json` row of the item signature table (a
// top-level `_signature`, canonical-JSON hash, Ed25519 by the user key).
const FORMAT = { itemType: 'tool', extension: '.json' } as const;

/**
 * Sign and write `thread.json` atomically (temp file, fsync, rename; mode
 * 0600). Capability tokens are redacted before signing.
 *
 * @throws RyeError THREAD_RECORD_INVALID when the record is malformed or names
 *   another thread; FILE_WRITE_FAILED.
 */
export async function writeThreadRecord(
  paths: ThreadPaths,
  record: ThreadRecord,
  signer: Signer,
  now: Date = new Date(),
): Promise<void> {
  checkShape(record, paths);
  const text = redactTokens(JSON.stringify(record));
  const signed = signText(text, { ...FORMAT, signer, now, path: paths.record });
  await writeFileAtomic(paths.record, signed.text, { mode: 0o600, dirMode: 0o700 });
}

/**
 * Read and verify `thread.json` on every read: capped size, a valid signature
 * by a key in `trust` over the whole record, the v1 shape, and its own
 * `thread_id` (a record copied from another thread is refused).
 *
 * With `own` (your key's fingerprint), a record signed by any other trusted
 * key (a project author's, a pulled bundle's) is refused as foreign.
 *
 * @throws RyeError THREAD_NOT_FOUND (no record), THREAD_RECORD_INVALID, THREAD_RECORD_FOREIGN
 */
export async function readThreadRecord(
  paths: ThreadPaths,
  trust: TrustSet,
  options: { readonly own?: string } = {},
): Promise<ThreadRecord> {
  let text: string;
  try {
    text = await readTextFile(paths.record, MAX_RECORD_BYTES);
  } catch (error) {
    if (
      isRyeError(error, 'FILE_UNREADABLE') &&
      (error.cause as NodeJS.ErrnoException)?.code === 'ENOENT'
    ) {
      throw new RyeError(
        'THREAD_NOT_FOUND',
        `Cannot find thread ${paths.threadId}: no ${paths.record}`,
        {
          thread: paths.threadId,
          path: paths.record,
        },
      );
    }
    throw invalid(paths, isRyeError(error) ? error.message : 'it cannot be read', { cause: error });
  }
  const verdict = verifyText(text, { ...FORMAT, trust, path: paths.record });
  if (!verdict.ok) {
    throw invalid(paths, verdict.message, { verdict: verdict.verdict, code: verdict.code });
  }
  if (options.own !== undefined && verdict.fingerprint !== options.own)
    throw new RyeError(
      'THREAD_RECORD_FOREIGN',
      `Cannot act on thread ${paths.threadId}: its record is signed by key ${verdict.fingerprint ?? '?'}, not by your own key (${options.own}); it is someone else's thread, which \`rye thread show\` may display but nothing continues, cancels or waits on`,
      { thread: paths.threadId, path: paths.record, signer: verdict.fingerprint },
    );
  const { _signature: _ignored, ...body } = JSON.parse(text) as Record<string, unknown>;
  return checkShape(body, paths);
}

/**
 * `trust` narrowed to the user's own key: what a thread's transcript and
 * checkpoints are read under when rye acts on the thread (only rye, with
 * your key, ever signs them).
 */
export function ownTrust(trust: TrustSet, own: string): TrustSet {
  const key = trust.get(own);
  return new Map(key === undefined ? [] : [[own, key]]);
}

function checkShape(value: unknown, paths: ThreadPaths): ThreadRecord {
  const parsed = threadRecordSchema.safeParse(value);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
    throw invalid(paths, `it is malformed (${issues.slice(0, 5).join('; ')})`, { issues });
  }
  if (parsed.data.thread_id !== paths.threadId) {
    throw invalid(paths, `it is the record of thread ${parsed.data.thread_id}`, {});
  }
  return parsed.data;
}

function invalid(paths: ThreadPaths, why: string, details: Record<string, unknown>): RyeError {
  const { cause, ...rest } = details;
  return new RyeError(
    'THREAD_RECORD_INVALID',
    `Cannot trust ${paths.record}: ${why}`,
    { thread: paths.threadId, path: paths.record, ...rest },
    cause === undefined ? {} : { cause },
  );
}
