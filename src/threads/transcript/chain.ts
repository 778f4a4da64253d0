import { RyeError } from '../../errors/index.js';
import { sha256Hex, type TrustSet } from '../../integrity/index.js';
import { checkpointProblem } from './checkpoint.js';
import { MAX_EVENT_BYTES } from './encode.js';
import { isEventType, type AnyPayload, type StoredEvent } from './event.js';
import type { TranscriptLines } from './reader.js';
import type { TranscriptHead } from './writer.js';

/** A transcript whose every link and checkpoint verified. */
export interface VerifiedTranscript {
  readonly events: readonly StoredEvent[];
  /** The last complete line, or null when there is none. */
  readonly head: TranscriptHead | null;
  /** Seq of the last checkpoint event, −1 when none. */
  readonly lastCheckpointSeq: number;
  /** Events after the last checkpoint: the crash window, accepted because they chain. */
  readonly unsealed: number;
  /** A final line without `\n`: `offset` is where it starts, `bytes` its length. */
  readonly tornTail: { readonly offset: number; readonly bytes: number } | null;
}

export interface VerifyTranscriptOptions {
  /** The thread the transcript must belong to (from the verified record or the path). */
  readonly thread: string;
  /** Keys checkpoints may be signed by: the local user's own key. */
  readonly trust: TrustSet;
  /** Refuse events after the last checkpoint (a finished thread ends sealed). */
  readonly requireSealed?: boolean;
}

const ENVELOPE_KEYS = 'v,seq,ts,thread,type,prev,payload';
const ISO_TS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/**
 * Verify a transcript: each line at most 512 KiB (checked before it is
 * parsed), a well-formed v1 envelope of this thread with `seq` equal to its
 * line index, `prev` the SHA-256 of the previous line's bytes (null at seq 0,
 * which is `thread_created`), and every checkpoint sealing the line before it
 * with a trusted signature. Pure over the bytes and the trust set.
 *
 * @throws RyeError TRANSCRIPT_TAMPERED at the first violation, naming its seq
 *   (and 1-based line) and the reason.
 */
export function verifyTranscript(
  split: TranscriptLines,
  options: VerifyTranscriptOptions,
): VerifiedTranscript {
  const events: StoredEvent[] = [];
  let prev: string | null = null;
  let lastCheckpointSeq = -1;
  split.lines.forEach((line, seq) => {
    if (line.length > MAX_EVENT_BYTES)
      throw tampered(seq, `the line has ${line.length} bytes, over ${MAX_EVENT_BYTES}`);
    const hash = sha256Hex(line);
    const event = parseEnvelope(line, seq);
    if (event.thread !== options.thread)
      throw tampered(seq, `it belongs to thread ${event.thread.slice(0, 80)}`);
    if (event.prev !== prev) {
      // The line before no longer hashes to what this one recorded: that line
      // was edited (or this prev was, or lines were removed or inserted here).
      throw tampered(
        Math.max(seq - 1, 0),
        `its bytes do not hash to the prev recorded at seq ${seq}: edited, or lines removed or inserted`,
      );
    }
    if (seq === 0 && event.type !== 'thread_created')
      throw tampered(seq, 'a transcript starts with thread_created');
    if (event.type === 'checkpoint') {
      if (event.payload['head'] !== prev || event.payload['seq'] !== seq - 1) {
        throw tampered(seq, 'the checkpoint does not seal the line before it');
      }
      const problem = checkpointProblem(event.payload, options.thread, options.trust);
      if (problem !== null) throw tampered(seq, `bad checkpoint: ${problem}`);
      lastCheckpointSeq = seq;
    }
    events.push(event);
    prev = hash;
  });
  const unsealed = events.length - 1 - lastCheckpointSeq;
  if (options.requireSealed === true && unsealed > 0) {
    throw tampered(
      events.length - 1,
      `${unsealed} events follow the last checkpoint of a finished thread`,
    );
  }
  return {
    events,
    head: prev === null ? null : { seq: events.length - 1, hash: prev },
    lastCheckpointSeq,
    unsealed,
    tornTail:
      split.tornTail === null
        ? null
        : { offset: split.completeBytes, bytes: split.tornTail.length },
  };
}

function parseEnvelope(line: Buffer, seq: number): StoredEvent {
  let value: unknown;
  try {
    value = JSON.parse(line.toString('utf8'));
  } catch {
    throw tampered(seq, 'the line is not JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw tampered(seq, 'the line is not a JSON object');
  }
  const e = value as Record<string, unknown>;
  if (Object.keys(e).join(',') !== ENVELOPE_KEYS)
    throw tampered(seq, 'the envelope fields are not v1');
  const { payload } = e;
  if (
    e['v'] !== 1 ||
    e['seq'] !== seq ||
    typeof e['ts'] !== 'string' ||
    !ISO_TS.test(e['ts']) ||
    typeof e['thread'] !== 'string' ||
    !isEventType(e['type']) ||
    (e['prev'] !== null && typeof e['prev'] !== 'string') ||
    typeof payload !== 'object' ||
    payload === null ||
    Array.isArray(payload)
  ) {
    throw tampered(seq, 'the envelope is malformed (v, seq, ts, type, prev or payload)');
  }
  return value as StoredEvent & { payload: AnyPayload };
}

function tampered(seq: number, why: string): RyeError {
  return new RyeError(
    'TRANSCRIPT_TAMPERED',
    `Cannot trust the transcript at seq ${seq} (line ${seq + 1}): ${why}`,
    { seq, line: seq + 1, reason: why },
  );
}
