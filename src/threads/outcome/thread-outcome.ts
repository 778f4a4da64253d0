import type { TrustSet } from '../../integrity/index.js';
import { formatUsd } from '../budget/index.js';
import {
  checkThreadDir,
  readThreadRecord,
  threadPaths,
  type ThreadRecord,
  type ThreadStatus,
} from '../store/index.js';
import {
  readTranscriptBytes,
  splitLines,
  verifyTranscript,
  type AnyPayload,
  type ErrorInfo,
  type StoredEvent,
} from '../transcript/index.js';

/** One finished thread as `wait_threads` and `rye thread wait` report it (THREADS.md §11). */
export interface ThreadOutcome {
  readonly thread_id: string;
  readonly status: ThreadStatus;
  readonly outputs?: unknown;
  readonly summary?: string;
  readonly error?: ErrorInfo;
  readonly cost: {
    readonly turns: number;
    readonly tokens_in: number;
    readonly tokens_out: number;
    readonly spend_usd: string;
    readonly tool_calls: number;
    readonly spawns: number;
  };
}

/**
 * The outcome from a verified record, and the summary from the transcript's
 * terminal event when that event is the record's own status (the record wins
 * where they disagree, THREADS.md §8). `status` overrides the record's when
 * the registry knows better (`interrupted`: the owner died). Pure.
 */
export function outcomeOf(
  record: ThreadRecord,
  terminal: AnyPayload | undefined,
  status: ThreadStatus = record.status,
): ThreadOutcome {
  const summary = terminal?.['summary'];
  return {
    thread_id: record.thread_id,
    status,
    ...(record.outputs === undefined ? {} : { outputs: record.outputs }),
    ...(typeof summary === 'string' ? { summary } : {}),
    ...(record.error === undefined ? {} : { error: record.error }),
    cost: {
      turns: record.cost.turns,
      tokens_in: record.cost.tokens_in,
      tokens_out: record.cost.tokens_out,
      spend_usd: formatUsd(record.cost.spend_nanos),
      tool_calls: record.cost.tool_calls,
      spawns: record.cost.spawns,
    },
  };
}

/** The last `thread_<status>` event of verified events, if it is the last event before a checkpoint. Pure. */
export function terminalEventOf(
  events: readonly StoredEvent[],
  status: ThreadStatus,
): AnyPayload | undefined {
  for (let i = events.length - 1; i >= 0; i -= 1) {
    const event = events[i] as StoredEvent;
    if (event.type === 'checkpoint') continue;
    return event.type === `thread_${status}` ? event.payload : undefined;
  }
  return undefined;
}

/**
 * Read a thread's outcome: its signed record verified against `trust`, and
 * for a finished thread the summary from its verified transcript.
 *
 * @throws RyeError THREAD_ID_INVALID, THREAD_NOT_FOUND, THREAD_RECORD_INVALID,
 *   TRANSCRIPT_TAMPERED, TRANSCRIPT_INVALID
 */
export async function readThreadOutcome(
  projectRoot: string,
  threadId: string,
  trust: TrustSet,
  status?: ThreadStatus,
): Promise<ThreadOutcome> {
  const paths = threadPaths(projectRoot, threadId);
  checkThreadDir(projectRoot, paths);
  const record = await readThreadRecord(paths, trust);
  let terminal: AnyPayload | undefined;
  if (record.status === 'completed' || record.status === 'failed') {
    // A finished thread's outcome is read from its sealed transcript alone.
    const verified = verifyTranscript(splitLines(readTranscriptBytes(paths.transcript)), {
      thread: paths.threadId,
      trust,
      mac: null,
      requireSealed: true,
    });
    terminal = terminalEventOf(verified.events, record.status);
  }
  return outcomeOf(record, terminal, status ?? record.status);
}
