import { RyeError, isRyeError } from '../../errors/index.js';
import { sha256Hex, verifyBytes, verifyBytesAsync, type TrustSet } from '../../integrity/index.js';
import { prepareCheckpoint, type PendingSignature } from './checkpoint.js';
import { MAX_EVENT_BYTES } from './encode.js';
import { isEventType, type StoredEvent } from './event.js';
import { limitsSetProblem } from './limits-set.js';
import { TAG_RE, macProblem, type MacKeyring } from './mac.js';
import type { TranscriptLines } from './reader.js';
import type { TranscriptHead } from './writer.js';

/** A transcript whose every link and checkpoint verified. */
export interface VerifiedTranscript {
  readonly events: readonly StoredEvent[];
  /** The last complete line, or null when there is none. */
  readonly head: TranscriptHead | null;
  /** Seq of the last checkpoint event, −1 when none. */
  readonly lastCheckpointSeq: number;
  /**
   * Events after the last checkpoint (the crash window), each believed because
   * its MAC verified under the thread's key.
   */
  readonly unsealed: number;
  /**
   * Events after the last checkpoint that were not believed because no
   * keyring was given (a foreign thread, a reader without the user key): they
   * are left out of `events`, and `head` is the last one kept.
   */
  readonly unverified: number;
  /** A final line without `\n`: `offset` is where it starts, `bytes` its length. */
  readonly tornTail: { readonly offset: number; readonly bytes: number } | null;
}

export interface VerifyTranscriptOptions {
  /** The thread the transcript must belong to (from the verified record or the path). */
  readonly thread: string;
  /** Keys checkpoints and `limits_set` events may be signed by: the local user's own key. */
  readonly trust: TrustSet;
  /**
   * The user's per-thread MAC keys: every event after the last checkpoint
   * must carry a MAC that verifies (every v2 event's, with `checkpoints:
   * 'all'`). Null: those events are not believed (see `unverified`); a writer
   * always has one.
   */
  readonly mac: MacKeyring | null;
  /** Refuse events after the last checkpoint (a finished thread ends sealed). */
  readonly requireSealed?: boolean;
  /**
   * Which checkpoint signatures to verify with Ed25519. `last` (the default,
   * for resume): only the last checkpoint's, which signs a head that commits to
   * every earlier line, earlier checkpoints included; when it fails, every
   * earlier one is checked too, to name the first bad one. `all` (an offline
   * audit): every checkpoint's, so a checkpoint whose own signature is bad is
   * refused even under a later good one (docs/transcripts-and-budgets.md).
   * Either way every checkpoint's form, seal and key trust are checked.
   */
  readonly checkpoints?: CheckpointMode;
}

/** What a transcript is verified with: the trusted checkpoint keys and the user's MAC keys. */
export type TranscriptKeys = Pick<VerifyTranscriptOptions, 'trust' | 'mac'>;

/** How many checkpoint signatures {@link verifyTranscript} verifies. */
export type CheckpointMode = 'last' | 'all';

interface Walk {
  readonly verified: VerifiedTranscript;
  /** Checkpoint signatures still to verify, in seq order. */
  readonly signatures: readonly (PendingSignature & { readonly seq: number })[];
  /** The first structural violation, if any: fatal once signatures before it are checked. */
  readonly error: RyeError | null;
}

const ENVELOPE_KEYS = ['v', 'seq', 'ts', 'thread', 'type', 'prev', 'payload', 'mac'] as const;
/** How many envelope fields a line of version `v` has: v1 ends at `payload`, v2 carries `mac` last. */
function fieldsOf(v: unknown): number {
  return v === 1 ? 7 : v === 2 ? 8 : -1;
}
const ISO_TS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/**
 * Verify a transcript: each line at most 512 KiB (checked before it is
 * parsed), a well-formed envelope of this thread with `seq` equal to its
 * line index, `prev` the SHA-256 of the previous line's bytes (null at seq 0,
 * which is `thread_created`), every checkpoint sealing the line before it
 * under a trusted key, the Ed25519 signature of the last checkpoint (of
 * every checkpoint with `checkpoints: 'all'`) and of every `limits_set`
 * event (by a key in `trust`), and the MAC of every event
 * after the last checkpoint under the thread's key (of every v2 event with
 * `all`). Pure over the bytes, the trust set and the keyring.
 *
 * @throws RyeError TRANSCRIPT_TAMPERED at the first violation, naming its seq
 *   (and 1-based line) and the reason.
 */
export function verifyTranscript(
  split: TranscriptLines,
  options: VerifyTranscriptOptions,
): VerifiedTranscript {
  const walk = walkChain(split, options);
  const { signatures } = walk;
  const last = signatures[signatures.length - 1];
  const all = checksAll(options);
  if (all || (last !== undefined && !verifyBytes(last.key, last.message, last.signature))) {
    for (const pending of signatures) {
      if (!verifyBytes(pending.key, pending.message, pending.signature))
        throw badSignature(pending.seq);
    }
  }
  if (walk.error !== null) throw walk.error;
  return walk.verified;
}

/**
 * {@link verifyTranscript} with the checkpoint signatures verified on libuv's
 * thread pool (all at once in `all` mode): the same checks and the same first
 * error, faster on a transcript with thousands of turns.
 */
export async function verifyTranscriptAsync(
  split: TranscriptLines,
  options: VerifyTranscriptOptions,
): Promise<VerifiedTranscript> {
  const walk = walkChain(split, options);
  const { signatures } = walk;
  const last = signatures[signatures.length - 1];
  const all = checksAll(options);
  if (
    all ||
    (last !== undefined && !(await verifyBytesAsync(last.key, last.message, last.signature)))
  ) {
    const results = await Promise.all(
      signatures.map((p) => verifyBytesAsync(p.key, p.message, p.signature)),
    );
    const bad = results.indexOf(false);
    if (bad >= 0) throw badSignature(signatures[bad]?.seq ?? -1);
  }
  if (walk.error !== null) throw walk.error;
  return walk.verified;
}

/** Every signature unless the caller asked for `last` (or nothing): a value we do not know checks more, not less. */
function checksAll(options: VerifyTranscriptOptions): boolean {
  return options.checkpoints !== undefined && options.checkpoints !== 'last';
}

/**
 * Everything but the checkpoints' Ed25519 checks. Stops at the first structural violation
 * and keeps the checkpoints before it, so whichever problem comes first in seq
 * order is the one reported.
 */
function walkChain(split: TranscriptLines, options: VerifyTranscriptOptions): Walk {
  const events: StoredEvent[] = [];
  const signatures: (PendingSignature & { seq: number })[] = [];
  let prev: string | null = null;
  let lastCheckpointSeq = -1;
  let error: RyeError | null = null;
  try {
    const { lines } = split;
    for (let seq = 0; seq < lines.length; seq += 1) {
      const line = lines[seq] as Buffer;
      if (line.length > MAX_EVENT_BYTES) {
        throw tampered(seq, `the line has ${line.length} bytes, over ${MAX_EVENT_BYTES}`);
      }
      const hash = sha256Hex(line);
      const event = parseEnvelope(line, seq);
      if (event.thread !== options.thread) {
        throw tampered(seq, `it belongs to thread ${event.thread.slice(0, 80)}`);
      }
      if (event.prev !== prev) {
        // The line before no longer hashes to what this one recorded: that line
        // was edited (or this prev was, or lines were removed or inserted here).
        throw tampered(
          Math.max(seq - 1, 0),
          `its bytes do not hash to the prev recorded at seq ${seq}: edited, or lines removed or inserted`,
        );
      }
      if (seq === 0 && event.type !== 'thread_created') {
        throw tampered(seq, 'a transcript starts with thread_created');
      }
      if (event.type === 'checkpoint') {
        if (event.payload['head'] !== prev || event.payload['seq'] !== seq - 1) {
          throw tampered(seq, 'the checkpoint does not seal the line before it');
        }
        const pending = prepareCheckpoint(event.payload, options.thread, options.trust);
        if (typeof pending === 'string') throw tampered(seq, `bad checkpoint: ${pending}`);
        signatures.push({ ...pending, seq });
        lastCheckpointSeq = seq;
      }
      if (event.type === 'limits_set') {
        // Verified here, every one: rare, and each raises a limit the record cannot.
        const problem = limitsSetProblem(event.payload, options.thread, seq, options.trust);
        if (problem !== null) throw tampered(seq, `bad limits_set: ${problem}`);
      }
      events.push(event);
      prev = hash;
    }
    const unsealed = events.length - 1 - lastCheckpointSeq;
    if (options.requireSealed === true && unsealed > 0) {
      throw tampered(
        events.length - 1,
        `${unsealed} events follow the last checkpoint of a finished thread`,
      );
    }
  } catch (caught) {
    if (!isRyeError(caught, 'TRANSCRIPT_TAMPERED')) throw caught;
    error = caught;
  }
  // Every event before a structural violation is checked, so an earlier bad MAC is the one reported.
  error = macError(split, events, lastCheckpointSeq, options) ?? error;
  let head: TranscriptHead | null = prev === null ? null : { seq: events.length - 1, hash: prev };
  let unverified = 0;
  if (options.mac === null && events.length - 1 > lastCheckpointSeq) {
    // Without the thread's key nothing after the last checkpoint is believed.
    unverified = events.length - 1 - lastCheckpointSeq;
    events.length = lastCheckpointSeq + 1;
    const last = split.lines[lastCheckpointSeq];
    head = last === undefined ? null : { seq: lastCheckpointSeq, hash: sha256Hex(last) };
  }
  return {
    verified: {
      events,
      head,
      lastCheckpointSeq,
      unsealed: events.length - 1 - lastCheckpointSeq,
      unverified,
      tornTail:
        split.tornTail === null
          ? null
          : { offset: split.completeBytes, bytes: split.tornTail.length },
    },
    signatures,
    error,
  };
}

/**
 * The first event whose MAC does not verify under the thread's key: every
 * event after the last checkpoint (a v1 line there has none), every v2 event
 * with `checkpoints: 'all'`. Null when they all do, or when no keyring was given.
 */
function macError(
  split: TranscriptLines,
  events: readonly StoredEvent[],
  lastCheckpointSeq: number,
  options: VerifyTranscriptOptions,
): RyeError | null {
  if (options.mac === null) return null;
  const key = options.mac.keyFor(options.thread);
  for (let seq = checksAll(options) ? 0 : lastCheckpointSeq + 1; seq < events.length; seq += 1) {
    if (events[seq]?.v === 1) {
      if (seq > lastCheckpointSeq)
        return tampered(seq, 'it carries no MAC and no checkpoint seals it');
      continue;
    }
    const problem = macProblem(key, split.lines[seq] as Buffer);
    if (problem !== null) return tampered(seq, problem);
  }
  return null;
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
  let count = 0;
  for (const key in e) {
    if (key !== ENVELOPE_KEYS[count]) throw tampered(seq, 'the envelope fields are not v1 or v2');
    count += 1;
  }
  const { payload } = e;
  if (
    count !== fieldsOf(e['v']) ||
    (count === 8 && (typeof e['mac'] !== 'string' || !TAG_RE.test(e['mac']))) ||
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
    throw tampered(seq, 'the envelope is malformed (v, seq, ts, type, prev, payload or mac)');
  }
  return value as StoredEvent;
}

function badSignature(seq: number): RyeError {
  return tampered(seq, 'bad checkpoint: its signature does not verify');
}

function tampered(seq: number, why: string): RyeError {
  return new RyeError(
    'TRANSCRIPT_TAMPERED',
    `Cannot trust the transcript at seq ${seq} (line ${seq + 1}): ${why}`,
    { seq, line: seq + 1, reason: why },
  );
}
