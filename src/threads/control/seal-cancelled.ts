import { reopenTranscript } from './reopen-transcript.js';
import { RyeError, isRyeError } from '../../errors/index.js';
import type { Signer, TrustSet } from '../../integrity/index.js';
import type { Clock } from '../../ids/index.js';
import {
  writeThreadRecord,
  type RegistryDb,
  type ThreadPaths,
  type ThreadRecord,
  type ThreadStatus,
} from '../store/index.js';
import {
  rebuildThread,
  isTerminalType,
  type ErrorInfo,
  type StoredEvent,
  type ThreadCost,
} from '../transcript/index.js';

export interface SealInput {
  readonly paths: ThreadPaths;
  /** The verified record, read under the tree lock. */
  readonly record: ThreadRecord;
  readonly reason: string;
  readonly registry: RegistryDb;
  readonly signer: Signer;
  readonly trust: TrustSet;
  readonly clock: Clock;
}

/**
 * End a thread whose owner is gone as `cancelled`, sealed, so an operator's
 * cancel is a decision on record rather than a resumable `interrupted`
 * (docs/threads.md "Cancel"). The caller holds the tree lock. The transcript
 * is verified and repaired as resume does (torn tail, dangling calls answered
 * THREAD_INTERRUPTED), attempts the owner left open are ended in the ledger
 * (an issued one is charged its reservation, an unsent one released), then
 * `thread_cancelled` with the cumulative cost and a checkpoint, the record and
 * the index. The thread stays resumable like any cancelled thread. A
 * transcript that already ends sealed with a terminal event (the owner died
 * between that and the record) is not cancelled: the record and the index
 * take that end, and the returned record says which.
 *
 * @throws RyeError TRANSCRIPT_TAMPERED, TRANSCRIPT_INVALID (nothing written)
 */
export async function sealCancelled(input: SealInput): Promise<ThreadRecord> {
  const { paths, clock } = input;
  const { writer, events } = reopenTranscript(paths, input);
  try {
    const rebuilt = rebuildThread(events);
    const ended = endedBeforeRecord(events);
    if (ended !== undefined) return await adopt(input, ended);
    const budget = input.registry.budgetStore();
    let cost: ThreadCost = rebuilt.cost;
    for (const attempt of rebuilt.openAttempts) {
      let ended;
      try {
        ended = await budget.release(attempt, 'cancelled');
      } catch (error) {
        // The ledger ended it already (the owner died after the ledger's
        // write and before the transcript's): the ledger's charge stands.
        if (isRyeError(error, 'BUDGET_ATTEMPT_INVALID')) continue;
        throw error;
      }
      writer.append('budget', {
        op: 'release',
        attempt_id: attempt,
        accounts: ended.accounts,
        nanos: ended.committedNanos,
        basis: ended.basis,
        state: ended.state,
        reason: ended.reason,
      });
      cost = { ...cost, spend_nanos: cost.spend_nanos + ended.committedNanos };
    }
    const error = new RyeError(
      'THREAD_CANCELLED',
      `Thread ${paths.threadId} was cancelled: ${input.reason}`,
      { reason: input.reason, owner: 'gone' },
    );
    const info = { code: error.code, message: error.message, details: error.details };
    writer.append('thread_cancelled', { error: info, cost });
    writer.checkpoint(input.signer);
    const now = new Date(clock.now());
    const record: ThreadRecord = {
      ...input.record,
      status: 'cancelled',
      updated_at: now.toISOString(),
      cost: { ...cost },
      error: info,
    };
    await writeThreadRecord(paths, record, input.signer, now);
    input.registry.setCost(paths.threadId, cost);
    input.registry.setStatus(paths.threadId, 'cancelled');
    return record;
  } finally {
    writer.close();
  }
}

/**
 * The terminal event of a transcript that ends with one (only checkpoints
 * after it): the owner died after sealing its end and before rewriting the
 * record. Pure.
 */
function endedBeforeRecord(events: readonly StoredEvent[]): StoredEvent | undefined {
  for (let i = events.length - 1; i >= 0; i -= 1) {
    const event = events[i] as StoredEvent;
    if (event.type === 'checkpoint') continue;
    return isTerminalType(event.type) && event.type !== 'thread_continued' ? event : undefined;
  }
  return undefined;
}

/** The thread had ended on its own: the record and the index take the sealed end, no cancel. */
async function adopt(input: SealInput, ended: StoredEvent): Promise<ThreadRecord> {
  const p = ended.payload;
  const status = ended.type.slice('thread_'.length) as ThreadStatus;
  const cost = p['cost'] as ThreadCost;
  const now = new Date(input.clock.now());
  const record: ThreadRecord = {
    ...input.record,
    status,
    updated_at: now.toISOString(),
    cost: { ...cost },
    ...(p['outputs'] === undefined ? {} : { outputs: p['outputs'] }),
    ...(p['error'] === undefined ? {} : { error: p['error'] as ErrorInfo }),
  };
  await writeThreadRecord(input.paths, record, input.signer, now);
  input.registry.setCost(input.paths.threadId, cost);
  input.registry.setStatus(input.paths.threadId, status);
  return record;
}
