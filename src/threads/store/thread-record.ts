import { z } from 'zod';
import { RyeError, isRyeError } from '../../errors/index.js';
import { signText, verifyText, type Signer, type TrustSet } from '../../integrity/index.js';
import { readTextFile, writeFileAtomic } from '../../platform/index.js';
import { tryParseThreadId } from '../ids/index.js';
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
 * @throws RyeError THREAD_NOT_FOUND (no record), THREAD_RECORD_INVALID
 */
export async function readThreadRecord(paths: ThreadPaths, trust: TrustSet): Promise<ThreadRecord> {
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
  const { _signature: _ignored, ...body } = JSON.parse(text) as Record<string, unknown>;
  return checkShape(body, paths);
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
