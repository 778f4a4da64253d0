import { z } from 'zod';
import { RyeError } from '../../errors/index.js';

/**
 * What a detached worker is told on its stdin (THREADS.md §11, §13): the
 * directive's inputs and limit overrides, and the exact capability strings
 * its caller held. The worker acts under these ∩ its own process authority
 * (`RYE_CAP_TOKEN` included), so a job can narrow a worker, never widen it.
 */
export const workerJobSchema = z.strictObject({
  v: z.literal(1),
  inputs: z.unknown(),
  limits: z.array(z.string().max(256)).max(32),
  caps: z.array(z.string().max(1024)).max(4096),
});
export type WorkerJob = z.infer<typeof workerJobSchema>;

/** The one line a worker writes on fd 3: the admitted thread, or why there is none. */
export type WorkerReport =
  | { readonly thread_id: string }
  | {
      readonly error: {
        readonly code: string;
        readonly message: string;
        readonly details?: unknown;
      };
    };

/** The fd the worker reports on (0–2 are stdin, ignored stdout and stderr). */
export const WORKER_REPORT_FD = 3;
/** The hidden option that turns `rye execute directive <id>` into a detached worker. */
export const WORKER_OPTION = '--detached-worker';
/** Bytes of job a worker accepts: inputs are capped at 1 MiB elsewhere too. */
export const MAX_WORKER_JOB_BYTES = 2 * 1024 * 1024;

/**
 * Parse a job from the parent. Untrusted only in the sense that anyone may
 * start a worker by hand; its caps can only narrow what that process holds.
 *
 * @throws RyeError USAGE_INVALID_ARGUMENT
 */
export function parseWorkerJob(text: string): WorkerJob {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new RyeError(
      'USAGE_INVALID_ARGUMENT',
      `Cannot start the detached worker: its job is not JSON (${(error as Error).message})`,
      {},
      { cause: error },
    );
  }
  const parsed = workerJobSchema.safeParse(raw);
  if (!parsed.success)
    throw new RyeError(
      'USAGE_INVALID_ARGUMENT',
      'Cannot start the detached worker: its job does not match the worker job schema',
      { issues: parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).slice(0, 8) },
    );
  return parsed.data;
}
