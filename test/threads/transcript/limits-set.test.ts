/**
 * A `limits_set` event (the operator's `rye thread resume --limit`) is
 * believed only with an Ed25519 signature by a trusted key over
 * `{limits, previous, seq, thread}`, checked wherever a transcript is
 * verified: a MAC that verifies is not enough.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS } from '../../../src/threads/directive/index.js';
import {
  lastLimitsSet,
  limitsSetProblem,
  signLimitsSet,
  type LimitsRecord,
} from '../../../src/threads/transcript/index.js';
import { expectRyeError } from '../support.js';
import { newTranscript, stranger, user, verifyFile, writeTurn } from './transcript-fixtures.js';

const previous: LimitsRecord = { ...DEFAULT_LIMITS };
const raised: LimitsRecord = { ...DEFAULT_LIMITS, turns: 40, spend: '2.50' };

/** A transcript with one turn and a limits_set at seq 6 signed by `by`, sealed or not. */
function withLimitsSet(payload: (thread: string, seq: number) => Record<string, unknown>) {
  const t = newTranscript();
  writeTurn(t.writer, ['c1', 'c2']);
  const seq = (t.writer.head?.seq ?? -1) + 1;
  t.writer.append('limits_set', payload(t.thread, seq) as never);
  t.writer.close();
  return { ...t, seq };
}

describe('limits_set', () => {
  it("verifies under the user's key and is what lastLimitsSet() returns", () => {
    const t = withLimitsSet((thread, seq) => ({
      ...signLimitsSet(user.signer, thread, seq, raised, previous),
    }));
    const verified = verifyFile(t.path, t.thread);
    expect(lastLimitsSet(verified.events)).toEqual(raised);
    const event = verified.events[t.seq];
    expect(limitsSetProblem(event!.payload, t.thread, t.seq, user.trust)).toBeNull();
  });

  it('is refused (TRANSCRIPT_TAMPERED at its seq) when another key signed it, though its MAC verifies', () => {
    const t = withLimitsSet((thread, seq) => ({
      ...signLimitsSet(stranger.signer, thread, seq, raised, previous),
    }));
    const error = expectRyeError(() => verifyFile(t.path, t.thread), 'TRANSCRIPT_TAMPERED');
    expect(error.details).toMatchObject({ seq: t.seq });
    expect(String(error.details['reason'])).toContain('not trusted');
  });

  it('is refused when its limits, seq or thread differ from what was signed, or a limit is malformed', () => {
    const cases: ((thread: string, seq: number) => Record<string, unknown>)[] = [
      (thread, seq) => ({
        ...signLimitsSet(user.signer, thread, seq, raised, previous),
        limits: { ...raised, turns: 10_000 },
      }),
      (thread, seq) => ({ ...signLimitsSet(user.signer, thread, seq + 1, raised, previous) }),
      (_thread, seq) => ({ ...signLimitsSet(user.signer, 'other', seq, raised, previous) }),
      (thread, seq) => ({
        ...signLimitsSet(user.signer, thread, seq, raised, previous),
        limits: { ...raised, turns: -1 },
      }),
      (thread, seq) => {
        const { tool_calls: _dropped, ...fewer } = raised;
        return { ...signLimitsSet(user.signer, thread, seq, raised, previous), limits: fewer };
      },
      (thread, seq) => ({
        ...signLimitsSet(user.signer, thread, seq, raised, previous),
        sig: 'x',
      }),
    ];
    for (const payload of cases) {
      const t = withLimitsSet(payload);
      const error = expectRyeError(() => verifyFile(t.path, t.thread), 'TRANSCRIPT_TAMPERED');
      expect(error.details).toMatchObject({ seq: t.seq });
      expect(String(error.details['reason'])).toContain('bad limits_set');
    }
  });
});
