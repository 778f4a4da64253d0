import type { KeyObject } from 'node:crypto';
import { closeSync, constants, fdatasyncSync, openSync, writeSync } from 'node:fs';
import { RyeError } from '../../errors/index.js';
import { sha256Hex, type Signer } from '../../integrity/index.js';
import { messageOf } from '../../platform/index.js';
import { parseThreadId, type Clock } from '../../ids/index.js';
import { signCheckpoint } from './checkpoint.js';
import { MAC_EXTRA_BYTES, macLine, type MacKeyring } from './mac.js';
import { MAX_EVENT_BYTES, encodePayload, envelopeLine, payloadJson } from './encode.js';
import { isEventType, type EventType, type PayloadOf, type StoredEvent } from './event.js';

/** Where a transcript ends: the last line's seq and the SHA-256 of its bytes. */
export interface TranscriptHead {
  readonly seq: number;
  readonly hash: string;
}

export interface TranscriptWriterOptions {
  readonly path: string;
  /** `<thread dir>/artifacts`, where oversized payload fields go. */
  readonly artifactsDir: string;
  readonly thread: string;
  readonly clock: Clock;
  /**
   * `null` to create a new transcript (refused when the file exists);
   * otherwise the head of the verified (and repaired) existing file.
   */
  readonly head: TranscriptHead | null;
  /** The user's per-thread MAC keys: every line carries its thread key's MAC. */
  readonly mac: MacKeyring;
}

/**
 * Appends hash-chained events to one thread's transcript, each line
 * MACed under the thread's key (no line rye did not write is believed). Appends are
 * synchronous `write`s of whole lines (a crash leaves at most a torn final
 * line, which repair drops); `checkpoint` signs the head and `fdatasync`s,
 * once per turn. One writer per transcript, under the tree lock. After a
 * failed write the writer refuses further appends: the file's end is unknown
 * until it is verified and repaired again.
 */
export class TranscriptWriter {
  readonly #fd: number;
  readonly #path: string;
  readonly #artifactsDir: string;
  readonly #thread: string;
  readonly #clock: Clock;
  readonly #key: KeyObject;
  #head: TranscriptHead | null;
  #broken = false;

  private constructor(fd: number, options: TranscriptWriterOptions, thread: string) {
    this.#fd = fd;
    this.#path = options.path;
    this.#artifactsDir = options.artifactsDir;
    this.#thread = thread;
    this.#clock = options.clock;
    this.#key = options.mac.keyFor(thread);
    this.#head = options.head;
  }

  /**
   * Open a transcript for appending: exclusively created when `head` is null,
   * else an existing file (never following a symbolic link).
   * @throws RyeError THREAD_ID_INVALID, FILE_WRITE_FAILED
   */
  static open(options: TranscriptWriterOptions): TranscriptWriter {
    const thread = parseThreadId(options.thread);
    const flags =
      constants.O_WRONLY |
      constants.O_APPEND |
      (constants.O_NOFOLLOW ?? 0) |
      (options.head === null ? constants.O_CREAT | constants.O_EXCL : 0);
    let fd: number;
    try {
      fd = openSync(options.path, flags, 0o600);
    } catch (error) {
      throw new RyeError(
        'FILE_WRITE_FAILED',
        `Cannot open transcript ${options.path}: ${messageOf(error)}`,
        { path: options.path },
        { cause: error },
      );
    }
    return new TranscriptWriter(fd, options, thread);
  }

  /** The last event written, or null for an empty transcript. */
  get head(): TranscriptHead | null {
    return this.#head;
  }

  /**
   * Append one event: redacted, U+2028/2029 escaped, oversized fields spilled
   * to artifacts, chained to the previous line. Returns the envelope with the
   * payload as given.
   *
   * @throws RyeError TRANSCRIPT_INVALID (unknown type, non-JSON payload, broken
   *   writer), TRANSCRIPT_EVENT_TOO_LARGE, FILE_WRITE_FAILED
   */
  append<T extends EventType>(type: T, payload: PayloadOf<T>): StoredEvent {
    if (this.#broken) {
      throw new RyeError(
        'TRANSCRIPT_INVALID',
        `Cannot append to ${this.#path}: an earlier write failed`,
        {
          path: this.#path,
        },
      );
    }
    if (!isEventType(type)) {
      throw new RyeError('TRANSCRIPT_INVALID', `Cannot append an event of type ${String(type)}`, {
        type: String(type),
      });
    }
    const seq = this.#head === null ? 0 : this.#head.seq + 1;
    const prev = this.#head?.hash ?? null;
    const ts = new Date(this.#clock.now()).toISOString();
    const bare = (json: string): string => envelopeLine(seq, ts, this.#thread, type, prev, json);
    // Fast path: the whole payload fits and holds nothing shaped like an artifact reference.
    const whole = payloadJson(payload);
    let bytes = Buffer.from(macLine(this.#key, bare(whole)), 'utf8');
    if (bytes.length - 1 > MAX_EVENT_BYTES || whole.includes('"$artifact"')) {
      const spilled = encodePayload(
        payload,
        this.#artifactsDir,
        (json) => Buffer.byteLength(bare(json), 'utf8') + MAC_EXTRA_BYTES,
      );
      bytes = Buffer.from(macLine(this.#key, bare(spilled)), 'utf8');
    }
    this.#write(bytes);
    this.#head = { seq, hash: sha256Hex(bytes.subarray(0, bytes.length - 1)) };
    return {
      v: 2,
      seq,
      ts,
      thread: this.#thread,
      type,
      prev,
      payload: payload as StoredEvent['payload'],
    };
  }

  /**
   * Seal every event so far: a `checkpoint` event signed by `signer` (the
   * user key) over `{head, seq, thread}` of the last line, then one
   * `fdatasync`.
   * @throws RyeError TRANSCRIPT_INVALID on an empty transcript; as {@link append}.
   */
  checkpoint(signer: Signer): StoredEvent {
    const head = this.#head;
    if (head === null) {
      throw new RyeError('TRANSCRIPT_INVALID', 'Cannot checkpoint an empty transcript', {
        path: this.#path,
      });
    }
    const event = this.append(
      'checkpoint',
      signCheckpoint(signer, this.#thread, head.seq, head.hash),
    );
    try {
      fdatasyncSync(this.#fd);
    } catch (error) {
      this.#broken = true;
      throw writeFailed(this.#path, error);
    }
    return event;
  }

  /** Close the file. */
  close(): void {
    closeSync(this.#fd);
  }

  #write(bytes: Buffer): void {
    try {
      let done = 0;
      while (done < bytes.length) done += writeSync(this.#fd, bytes, done);
    } catch (error) {
      this.#broken = true;
      throw writeFailed(this.#path, error);
    }
  }
}

function writeFailed(path: string, error: unknown): RyeError {
  return new RyeError(
    'FILE_WRITE_FAILED',
    `Cannot write transcript ${path}: ${messageOf(error)}`,
    { path },
    { cause: error },
  );
}
