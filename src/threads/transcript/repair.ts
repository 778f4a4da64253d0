import { ftruncateSync, openSync, closeSync, constants } from 'node:fs';
import { RyeError } from '../../errors/index.js';
import type { Signer } from '../../integrity/index.js';
import { messageOf } from '../../platform/index.js';
import type { Clock } from '../../ids/index.js';
import type { VerifiedTranscript } from './chain.js';
import type { StoredEvent } from './event.js';
import { macKeyring } from './mac.js';
import { TranscriptWriter } from './writer.js';

/** What a transcript needs before it can be continued. */
export interface RepairPlan {
  readonly tornTail: { readonly offset: number; readonly bytes: number } | null;
  /** Tool calls the model made that never got a result, in the order they were made. */
  readonly danglingCallIds: readonly string[];
  /** True when the transcript ends after its last checkpoint (it must be re-sealed). */
  readonly unsealed: boolean;
}

/** The calls of every `cognition_out` with no `tool_call_result` for their id. Pure. */
export function danglingCalls(events: readonly StoredEvent[]): string[] {
  const answered = new Set<string>();
  for (const event of events) {
    if (event.type === 'tool_call_result' && typeof event.payload['call_id'] === 'string') {
      answered.add(event.payload['call_id']);
    }
  }
  const dangling: string[] = [];
  for (const event of events) {
    if (event.type !== 'cognition_out' || !Array.isArray(event.payload['content'])) continue;
    for (const part of event.payload['content'] as unknown[]) {
      const call = part as { type?: unknown; id?: unknown };
      if (call.type === 'tool_call' && typeof call.id === 'string' && !answered.has(call.id)) {
        answered.add(call.id);
        dangling.push(call.id);
      }
    }
  }
  return dangling;
}

/** What {@link repairTranscript} would do. Pure. */
export function planRepair(verified: VerifiedTranscript): RepairPlan {
  return {
    tornTail: verified.tornTail,
    danglingCallIds: danglingCalls(verified.events),
    unsealed: verified.unsealed > 0,
  };
}

export interface RepairOptions {
  readonly path: string;
  readonly artifactsDir: string;
  readonly thread: string;
  readonly clock: Clock;
  /** The user key, to re-seal. */
  readonly signer: Signer;
  /**
   * The verification of the same bytes under the tree lock, with the
   * thread's MAC key: only events whose MAC verified are re-sealed.
   */
  readonly verified: VerifiedTranscript;
}

/**
 * Make a verified transcript continuable, persisting the repair so it is never
 * redone (THREADS.md §10 step 5): a torn final line is cut off and recorded
 * as `repair{torn_tail}`; each dangling call gets `repair{dangling_calls}` and
 * a synthetic `tool_call_result{ok: false, error.code: "THREAD_INTERRUPTED"}`;
 * then, if anything was appended or the tail was unsealed, a checkpoint
 * re-seals it. Returns the writer positioned at the new head.
 *
 * @throws RyeError TRANSCRIPT_INVALID when no complete event survives;
 *   FILE_WRITE_FAILED.
 */
export function repairTranscript(options: RepairOptions): {
  readonly writer: TranscriptWriter;
  readonly plan: RepairPlan;
  readonly appended: readonly StoredEvent[];
} {
  const { verified } = options;
  if (verified.head === null) {
    throw new RyeError(
      'TRANSCRIPT_INVALID',
      `Cannot repair ${options.path}: it holds no complete event`,
      {
        path: options.path,
      },
    );
  }
  if (verified.unverified > 0) {
    throw new RyeError(
      'TRANSCRIPT_INVALID',
      `Cannot repair ${options.path}: ${verified.unverified} events after its last checkpoint were read without the thread's MAC key`,
      { path: options.path },
    );
  }
  const plan = planRepair(verified);
  if (plan.tornTail !== null) truncateTo(options.path, plan.tornTail.offset);
  const writer = TranscriptWriter.open({
    ...options,
    head: verified.head,
    mac: macKeyring(options.signer),
  });
  const appended: StoredEvent[] = [];
  if (plan.tornTail !== null) {
    appended.push(
      writer.append('repair', {
        kind: 'torn_tail',
        call_ids: [],
        dropped_bytes: plan.tornTail.bytes,
      }),
    );
  }
  if (plan.danglingCallIds.length > 0) {
    appended.push(
      writer.append('repair', {
        kind: 'dangling_calls',
        call_ids: plan.danglingCallIds,
        dropped_bytes: 0,
      }),
    );
    for (const callId of plan.danglingCallIds) {
      appended.push(
        writer.append('tool_call_result', {
          call_id: callId,
          ok: false,
          error: {
            code: 'THREAD_INTERRUPTED',
            message: 'The process running this call stopped before it returned a result',
          },
          bytes: 0,
          truncated: false,
        }),
      );
    }
  }
  if (appended.length > 0 || plan.unsealed) appended.push(writer.checkpoint(options.signer));
  return { writer, plan, appended };
}

function truncateTo(path: string, length: number): void {
  let fd: number | undefined;
  try {
    fd = openSync(path, constants.O_WRONLY | (constants.O_NOFOLLOW ?? 0));
    ftruncateSync(fd, length);
  } catch (error) {
    throw new RyeError(
      'FILE_WRITE_FAILED',
      `Cannot cut the torn tail of ${path}: ${messageOf(error)}`,
      { path },
      { cause: error },
    );
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
