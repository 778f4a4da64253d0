/**
 * The runner's last phase, finalizing (THREADS.md §9, §14): once its children
 * are settled, a thread's ending is recorded as its terminal event sealed by
 * a checkpoint, then as its signed `thread.json`, its registry row (cost,
 * status) and the result its caller gets.
 */
import type { Signer } from '../../integrity/index.js';
import type { Clock } from '../../ids/index.js';
import {
  writeThreadRecord,
  type RegistryDb,
  type ThreadRecord,
  type ThreadStatus,
  type threadPaths,
} from '../store/index.js';
import type { ErrorInfo, ThreadCost, TranscriptWriter } from '../transcript/index.js';
import type { Ending } from './ending.js';
import { publicCost, type ThreadResult } from './thread-result.js';

/** An ending as the transcript, the record and the result carry it. */
export interface Terminal {
  readonly status: ThreadStatus;
  readonly outputs?: Record<string, unknown>;
  readonly summary?: string;
  readonly error?: ErrorInfo;
}

/** The terminal of an ending. Pure. */
export function terminalOf(ending: Ending): Terminal {
  const error: ErrorInfo | undefined =
    'error' in ending
      ? { code: ending.error.code, message: ending.error.message, details: ending.error.details }
      : undefined;
  const outputs = 'outputs' in ending ? ending.outputs : undefined;
  const summary = 'summary' in ending ? ending.summary : undefined;
  return {
    status: ending.status,
    ...(outputs === undefined ? {} : { outputs }),
    ...(summary === undefined ? {} : { summary }),
    ...(error === undefined ? {} : { error }),
  };
}

/** Append the terminal event (`thread_<status>`) and seal it with a checkpoint. */
export function appendTerminal(
  writer: TranscriptWriter,
  signer: Signer,
  { status, outputs, summary, error }: Terminal,
  cost: ThreadCost,
): void {
  writer.append(`thread_${status}` as 'thread_completed', {
    ...(outputs === undefined ? {} : { outputs }),
    ...(summary === undefined ? {} : { summary }),
    ...(error === undefined ? {} : { error }),
    cost,
  });
  writer.checkpoint(signer);
}

/** The record of a thread that ended, updated at `nowMs`. Pure. */
export function finalRecordOf(
  record: ThreadRecord,
  { status, outputs, error }: Terminal,
  cost: ThreadCost,
  nowMs: number,
): ThreadRecord {
  return {
    ...record,
    status,
    updated_at: new Date(nowMs).toISOString(),
    cost: { ...cost },
    ...(outputs === undefined ? {} : { outputs }),
    ...(error === undefined ? {} : { error }),
  };
}

/** What recording an ending needs from its run. */
export interface EndingStore {
  readonly threadId: string;
  readonly signer: Signer;
  readonly clock: Clock;
  readonly registry: RegistryDb;
  readonly progress: (line: string) => void;
}

/** Write the final record and the registry row, and answer the thread's result. */
export async function writeEnding(
  ctx: EndingStore,
  paths: ReturnType<typeof threadPaths>,
  record: ThreadRecord,
  { status, outputs, summary, error }: Terminal,
  cost: ThreadCost,
): Promise<ThreadResult> {
  await writeThreadRecord(paths, record, ctx.signer, new Date(ctx.clock.now()));
  ctx.registry.setCost(ctx.threadId, cost);
  ctx.registry.setStatus(ctx.threadId, status);
  ctx.progress(
    `thread ${ctx.threadId} ${status}${error === undefined ? '' : ` (${error.code}: ${error.message})`}; ${cost.turns} turns, $${publicCost(cost).spend_usd}`,
  );
  return {
    ok: status === 'completed',
    status,
    thread_id: ctx.threadId,
    ...(outputs === undefined ? {} : { outputs }),
    ...(summary === undefined ? {} : { summary }),
    ...(error === undefined ? {} : { error }),
    cost: publicCost(cost),
  };
}
