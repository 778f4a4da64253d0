import {
  canonicalJson,
  encodeSignature,
  parseJsonAst,
  signBytes,
  verifyBytes,
  type Signer,
  type TrustSet,
} from '../../integrity/index.js';
import { LIMIT_NAMES, parseLimitValue } from '../../items/index.js';
import { pendingSignature } from './checkpoint.js';
import type { LimitsRecord, LimitsSetPayload, StoredEvent } from './event.js';

/**
 * The signed bytes: canonical JSON of `{limits, previous, seq, thread}`
 * (limits already checked, as {@link limitsSetProblem} does first). The
 * thread id and the event's seq bind the decision to its own place in its own
 * transcript, so it cannot be replayed into another thread or position. Pure.
 */
export function limitsSetMessage(
  thread: string,
  seq: number,
  limits: LimitsRecord,
  previous: LimitsRecord,
): Buffer {
  // The values are checked integers and decimal strings: JSON.stringify loses no lexeme.
  const node = parseJsonAst(JSON.stringify({ limits, previous, seq, thread }), 'limits_set');
  return Buffer.from(canonicalJson(node), 'utf8');
}

/** Sign the operator's limits for the event appended at `seq` (Ed25519 with the user key). */
export function signLimitsSet(
  signer: Signer,
  thread: string,
  seq: number,
  limits: LimitsRecord,
  previous: LimitsRecord,
): LimitsSetPayload {
  const sig = signBytes(signer.privateKey, limitsSetMessage(thread, seq, limits, previous));
  return { limits, previous, fp: signer.fingerprint, sig: encodeSignature(sig) };
}

/**
 * Why a `limits_set` event at `seq` is not to be believed, or null: every
 * limit present once with a value `<limits>` accepts, and an Ed25519 signature
 * over {@link limitsSetMessage} by a key in `trust` (resume passes only the
 * user's own key). Pure over the trust set.
 */
export function limitsSetProblem(
  payload: Readonly<Record<string, unknown>>,
  thread: string,
  seq: number,
  trust: TrustSet,
): string | null {
  const { limits, previous, fp, sig } = payload;
  const problem = limitsProblem(limits) ?? limitsProblem(previous);
  if (problem !== null) return problem;
  const pending = pendingSignature(
    fp,
    sig,
    () => limitsSetMessage(thread, seq, limits as LimitsRecord, previous as LimitsRecord),
    trust,
  );
  if (typeof pending === 'string') return pending;
  return verifyBytes(pending.key, pending.message, pending.signature)
    ? null
    : 'its signature does not verify';
}

/** The limits the last `limits_set` event set, or null when there is none. Pure. */
export function lastLimitsSet(events: readonly StoredEvent[]): LimitsRecord | null {
  for (let i = events.length - 1; i >= 0; i -= 1) {
    const event = events[i];
    if (event?.type === 'limits_set') return event.payload['limits'] as LimitsRecord;
  }
  return null;
}

function limitsProblem(value: unknown): string | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return 'its limits are not an object';
  const keys = Object.keys(value);
  if (keys.length !== LIMIT_NAMES.length || !LIMIT_NAMES.every((n) => keys.includes(n)))
    return `its limits are not exactly ${LIMIT_NAMES.join(', ')}`;
  for (const name of LIMIT_NAMES) {
    const v = (value as Record<string, unknown>)[name];
    const typed = name === 'spend' ? typeof v === 'string' : typeof v === 'number';
    const parsed = typed ? parseLimitValue(name, String(v)) : undefined;
    if (parsed === undefined || 'problem' in parsed || parsed.value !== v)
      return `its limit ${name} is not a valid value`;
  }
  return null;
}
