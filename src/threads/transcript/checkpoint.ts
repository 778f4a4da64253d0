import type { KeyObject } from 'node:crypto';
import {
  encodeSignature,
  signBytes,
  verifyBytes,
  type Signer,
  type TrustSet,
} from '../../integrity/index.js';

/** A checkpoint's payload: it seals every event up to and including `seq`, whose line hashes to `head`. */
export interface CheckpointPayload {
  readonly head: string;
  readonly seq: number;
  readonly fp: string;
  readonly sig: string;
}

/** A checkpoint whose fields are well-formed and whose key is trusted: only Ed25519 is left to check. */
export interface PendingSignature {
  readonly key: KeyObject;
  readonly message: Buffer;
  readonly signature: Buffer;
}

const SIG_TEXT = /^[A-Za-z0-9_-]{86}(?:==)?$/;

/**
 * The signed bytes: canonical JSON `{"head","seq","thread"}` (sorted keys, no
 * whitespace). The thread id binds a checkpoint to its own transcript, so one
 * cannot be replayed into another. Pure.
 */
export function checkpointMessage(thread: string, seq: number, head: string): Buffer {
  return Buffer.from(
    `{"head":${JSON.stringify(head)},"seq":${seq},"thread":${JSON.stringify(thread)}}`,
    'utf8',
  );
}

/** Sign a checkpoint with the user key (Ed25519 through `integrity`). */
export function signCheckpoint(
  signer: Signer,
  thread: string,
  seq: number,
  head: string,
): CheckpointPayload {
  const sig = signBytes(signer.privateKey, checkpointMessage(thread, seq, head));
  return { head, seq, fp: signer.fingerprint, sig: encodeSignature(sig) };
}

/**
 * Everything about a checkpoint but the Ed25519 verification itself: its
 * fields are well-formed and its fingerprint names a key in `trust`. Returns
 * the problem as a sentence, or what is left to verify. Pure.
 */
export function prepareCheckpoint(
  payload: Readonly<Record<string, unknown>>,
  thread: string,
  trust: TrustSet,
): string | PendingSignature {
  const { head, seq, fp, sig } = payload;
  if (typeof head !== 'string' || !/^[0-9a-f]{64}$/.test(head)) {
    return 'its head is not a hex SHA-256';
  }
  if (typeof seq !== 'number' || !Number.isSafeInteger(seq) || seq < 0) {
    return 'its seq is not a count';
  }
  return pendingSignature(fp, sig, () => checkpointMessage(thread, seq, head), trust);
}

/**
 * A user-key signature carried in an event (`fp`, `sig`): well-formed, by a
 * key in `trust`, with the message it must verify over. Returns the problem
 * as a sentence, or what is left to verify. Pure.
 */
export function pendingSignature(
  fp: unknown,
  sig: unknown,
  message: () => Buffer,
  trust: TrustSet,
): string | PendingSignature {
  if (typeof fp !== 'string' || typeof sig !== 'string' || !SIG_TEXT.test(sig)) {
    return 'its fingerprint or signature is malformed';
  }
  const trusted = trust.get(fp);
  if (trusted === undefined) {
    return `it is signed by key ${fp.slice(0, 16)}, which is not trusted`;
  }
  return {
    key: trusted.key,
    message: message(),
    signature: Buffer.from(sig.replace(/=+$/, ''), 'base64url'),
  };
}

/**
 * Why a checkpoint does not verify, or null when it does: well-formed, a
 * trusted key, and that key's Ed25519 signature over `{head, seq, thread}`.
 * Pure over the trust set.
 */
export function checkpointProblem(
  payload: Readonly<Record<string, unknown>>,
  thread: string,
  trust: TrustSet,
): string | null {
  const pending = prepareCheckpoint(payload, thread, trust);
  if (typeof pending === 'string') return pending;
  return verifyBytes(pending.key, pending.message, pending.signature)
    ? null
    : 'its signature does not verify';
}
