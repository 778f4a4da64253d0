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
 * Why a checkpoint does not verify, or null when it does: its fields are
 * well-formed, its fingerprint names a key in `trust`, and the signature is
 * that key's over `{head, seq, thread}`. Pure over the trust set.
 */
export function checkpointProblem(
  payload: Readonly<Record<string, unknown>>,
  thread: string,
  trust: TrustSet,
): string | null {
  const { head, seq, fp, sig } = payload;
  if (typeof head !== 'string' || !/^[0-9a-f]{64}$/.test(head))
    return 'its head is not a hex SHA-256';
  if (typeof seq !== 'number' || !Number.isSafeInteger(seq) || seq < 0)
    return 'its seq is not a count';
  if (typeof fp !== 'string' || typeof sig !== 'string' || !SIG_TEXT.test(sig)) {
    return 'its fingerprint or signature is malformed';
  }
  const key = trust.get(fp);
  if (key === undefined) return `it is signed by key ${fp.slice(0, 16)}, which is not trusted`;
  const bytes = Buffer.from(sig.replace(/=+$/, ''), 'base64url');
  if (!verifyBytes(key.key, checkpointMessage(thread, seq, head), bytes)) {
    return 'its signature does not verify';
  }
  return null;
}
