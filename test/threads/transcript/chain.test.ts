import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../../src/integrity/index.js';
import {
  MAX_EVENT_BYTES,
  TranscriptWriter,
  checkpointMessage,
  signCheckpoint,
  splitLines,
  verifyTranscript,
  verifyTranscriptAsync,
} from '../../../src/threads/transcript/index.js';
import { expectRyeError, expectRyeErrorAsync } from '../support.js';
import {
  newTranscript,
  stranger,
  user,
  userMac,
  verifyFile,
  writeTurn,
} from './transcript-fixtures.js';

/** A sealed transcript of 2 turns: seq 0 created, 1–5 turn 1, 6 checkpoint, 7–11 turn 2, 12 checkpoint. */
function sealedTranscript(): ReturnType<typeof newTranscript> {
  const t = newTranscript();
  writeTurn(t.writer, ['c1', 'c2']);
  t.writer.checkpoint(user.signer);
  writeTurn(t.writer, ['c3', 'c4']);
  t.writer.checkpoint(user.signer);
  t.writer.close();
  return t;
}

function lines(path: string): string[] {
  return readFileSync(path, 'utf8').split('\n').slice(0, -1);
}

function rewrite(path: string, edit: (lines: string[]) => string[]): void {
  writeFileSync(path, `${edit(lines(path)).join('\n')}\n`);
}

function expectTampered(path: string, thread: string, seq: number): void {
  const error = expectRyeError(() => verifyFile(path, thread), 'TRANSCRIPT_TAMPERED');
  expect(error.details['seq']).toBe(seq);
  expect(error.message).toContain(`seq ${seq} (line ${seq + 1})`);
}

describe('verifyTranscript()', () => {
  it('accepts an untouched transcript and reports its head and seals', () => {
    const t = sealedTranscript();
    const verified = verifyFile(t.path, t.thread, true);
    expect(verified.events).toHaveLength(13);
    expect(verified.lastCheckpointSeq).toBe(12);
    expect(verified.head).toEqual({ seq: 12, hash: sha256Hex(lines(t.path)[12] ?? '') });
    expect(verified.tornTail).toBeNull();
  });

  it('names the line edited in the middle, even when it stays valid JSON', () => {
    const t = sealedTranscript();
    rewrite(t.path, (ls) =>
      ls.map((l, i) => (i === 3 ? l.replace('"rye_execute"', '"rye_executf"') : l)),
    );
    expectTampered(t.path, t.thread, 3);
  });

  it('names a line that no longer parses', () => {
    const t = sealedTranscript();
    rewrite(t.path, (ls) => ls.map((l, i) => (i === 8 ? l.slice(0, -1) : l)));
    expectTampered(t.path, t.thread, 8);
  });

  it('refuses removed, inserted and reordered lines', () => {
    const removed = sealedTranscript();
    rewrite(removed.path, (ls) => ls.filter((_, i) => i !== 4));
    expectRyeError(() => verifyFile(removed.path, removed.thread), 'TRANSCRIPT_TAMPERED');

    const inserted = sealedTranscript();
    rewrite(inserted.path, (ls) => [...ls.slice(0, 5), ls[4] ?? '', ...ls.slice(5)]);
    expectTampered(inserted.path, inserted.thread, 5);

    const swapped = sealedTranscript();
    rewrite(swapped.path, (ls) =>
      ls.map((l, i) => (i === 4 ? (ls[5] ?? '') : i === 5 ? (ls[4] ?? '') : l)),
    );
    expectRyeError(() => verifyFile(swapped.path, swapped.thread), 'TRANSCRIPT_TAMPERED');
  });

  it('refuses an edit that rewrites every later hash: the checkpoint no longer verifies', () => {
    const t = sealedTranscript();
    const original = lines(t.path);
    // Re-chain everything after an edit at seq 1, as an attacker without the key can.
    const edited = [...original];
    edited[1] = (edited[1] ?? '').replace('"working"', '"hacked!"');
    expect(edited[1]).toContain('hacked!');
    for (let i = 2; i < edited.length; i += 1) {
      const event = JSON.parse(edited[i] ?? '') as {
        prev: string;
        payload: Record<string, unknown>;
      };
      event.prev = sha256Hex(edited[i - 1] ?? '');
      if ((event as unknown as { type: string }).type === 'checkpoint')
        event.payload['head'] = event.prev;
      edited[i] = JSON.stringify(event);
    }
    writeFileSync(t.path, `${edited.join('\n')}\n`);
    const error = expectRyeError(() => verifyFile(t.path, t.thread), 'TRANSCRIPT_TAMPERED');
    expect(error.details['seq']).toBe(6);
    expect(error.message).toContain('bad checkpoint');
  });

  it('refuses a forged checkpoint: an untrusted key, another thread, a flipped signature, a wrong head', () => {
    const forge = (
      sign: (head: string, seq: number, thread: string) => Record<string, unknown>,
    ): ReturnType<typeof newTranscript> => {
      const t = newTranscript();
      writeTurn(t.writer, ['c1']);
      t.writer.close();
      const ls = lines(t.path);
      const last = ls[ls.length - 1] ?? '';
      const head = sha256Hex(last);
      const seq = ls.length;
      const payload = sign(head, seq - 1, t.thread);
      const line = `{"v":1,"seq":${seq},"ts":"2026-01-01T00:00:01.000Z","thread":"${t.thread}","type":"checkpoint","prev":"${head}","payload":${JSON.stringify(payload)}}`;
      appendFileSync(t.path, `${line}\n`);
      return t;
    };
    const cases = [
      forge((head, seq, thread) => ({ ...signCheckpoint(stranger.signer, thread, seq, head) })),
      forge((head, seq) => ({
        ...signCheckpoint(user.signer, 'other-0000000000000000000000000', seq, head),
      })),
      forge((head, seq, thread) => {
        const p = signCheckpoint(user.signer, thread, seq, head);
        return {
          ...p,
          sig: `${p.sig.slice(0, 10)}${p.sig[10] === 'A' ? 'B' : 'A'}${p.sig.slice(11)}`,
        };
      }),
      forge((head, seq, thread) => ({
        ...signCheckpoint(user.signer, thread, seq - 1, head),
        seq: seq,
      })),
      forge((_head, seq, thread) => ({
        ...signCheckpoint(user.signer, thread, seq, 'f'.repeat(64)),
      })),
      forge((head, seq, thread) => ({
        ...signCheckpoint(user.signer, thread, seq, head),
        sig: 'AAAA',
      })),
    ];
    for (const t of cases) {
      const error = expectRyeError(() => verifyFile(t.path, t.thread), 'TRANSCRIPT_TAMPERED');
      expect(error.details['seq']).toBe(4);
    }
    expect(checkpointMessage('t', 1, 'h').toString()).toBe('{"head":"h","seq":1,"thread":"t"}');
  });

  it('refuses an oversized line before parsing it', () => {
    const t = newTranscript();
    t.writer.close();
    appendFileSync(t.path, `${'['.repeat(MAX_EVENT_BYTES + 1)}\n`);
    const error = expectRyeError(() => verifyFile(t.path, t.thread), 'TRANSCRIPT_TAMPERED');
    expect(error.message).toContain('over 524288');
  });

  it("refuses another thread's transcript and one that does not start with thread_created", () => {
    const t = sealedTranscript();
    expectRyeError(
      () =>
        verifyTranscript(splitLines(readFileSync(t.path)), {
          thread: 'other-0000000000000000000000000a',
          trust: user.trust,
          mac: userMac,
        }),
      'TRANSCRIPT_TAMPERED',
    );
    rewrite(t.path, (ls) => [ls[1]?.replace('"seq":1', '"seq":0') ?? '']);
    expectRyeError(() => verifyFile(t.path, t.thread), 'TRANSCRIPT_TAMPERED');
  });

  it('accepts events after the last checkpoint if they chain (the crash window), unless the thread is finished', () => {
    const t = newTranscript();
    writeTurn(t.writer, ['c1']);
    t.writer.checkpoint(user.signer);
    t.writer.append('cognition_in', { content: 'after' });
    t.writer.close();
    const verified = verifyFile(t.path, t.thread);
    expect(verified.unsealed).toBe(1);
    expectRyeError(() => verifyFile(t.path, t.thread, true), 'TRANSCRIPT_TAMPERED');
  });

  it('splits on \\n only: a raw U+2028 or \\r inside a line is data', () => {
    const t = newTranscript();
    t.writer.close();
    const bytes = Buffer.from('a\u2028b\rc\nd\ne');
    const split = splitLines(bytes);
    expect(split.lines.map((l) => l.toString())).toEqual(['a\u2028b\rc', 'd']);
    expect(split.tornTail?.toString()).toBe('e');
    expect(split.completeBytes).toBe(bytes.length - 1);
  });

  it('a writer reopened at the verified head continues the same chain', () => {
    const t = sealedTranscript();
    const verified = verifyFile(t.path, t.thread, true);
    const writer = TranscriptWriter.open({
      mac: userMac,
      path: t.path,
      artifactsDir: t.artifacts,
      thread: t.thread,
      clock: t.clock,
      head: verified.head,
    });
    writer.append('cognition_in', { content: 'add auth' });
    writer.checkpoint(user.signer);
    writer.close();
    expect(verifyFile(t.path, t.thread, true).events).toHaveLength(15);
  });

  it('verifyTranscriptAsync() reaches the same verdicts, reporting the earliest problem first', async () => {
    const t = sealedTranscript();
    const split = (): ReturnType<typeof splitLines> => splitLines(readFileSync(t.path));
    const sync = verifyTranscript(split(), { thread: t.thread, trust: user.trust, mac: userMac });
    expect(
      await verifyTranscriptAsync(split(), { thread: t.thread, trust: user.trust, mac: userMac }),
    ).toEqual(sync);

    // A bad signature at seq 6 and a broken line at seq 11: seq 6 is reported.
    rewrite(t.path, (ls) =>
      ls.map((l, i) => {
        if (i === 11) return l.slice(0, -1);
        if (i !== 6) return l;
        const e = JSON.parse(l) as { payload: { sig: string } };
        e.payload.sig = `${e.payload.sig[0] === 'A' ? 'B' : 'A'}${e.payload.sig.slice(1)}`;
        return JSON.stringify(e);
      }),
    );
    for (const verify of [
      async () => verifyTranscript(split(), { thread: t.thread, trust: user.trust, mac: userMac }),
      () => verifyTranscriptAsync(split(), { thread: t.thread, trust: user.trust, mac: userMac }),
    ]) {
      const error = await expectRyeErrorAsync(verify, 'TRANSCRIPT_TAMPERED');
      expect(error.details['seq']).toBe(6);
    }
  });
});

describe('checkpoint modes: the last signature (resume) or every signature (audit)', () => {
  const modes = ['last', 'all'] as const;
  const verifyIn = (
    path: string,
    thread: string,
    checkpoints: (typeof modes)[number],
  ): ReturnType<typeof verifyTranscript> =>
    verifyTranscript(splitLines(readFileSync(path)), {
      thread,
      trust: user.trust,
      mac: userMac,
      checkpoints,
    });

  /** Turn 1 sealed at seq 6; turn 2, then a checkpoint at seq 12 whose signature is flipped; turn 3 sealed at 18 by the key holder. */
  function badSealCovered(): ReturnType<typeof newTranscript> {
    const t = newTranscript();
    writeTurn(t.writer, ['c1', 'c2']);
    t.writer.checkpoint(user.signer);
    writeTurn(t.writer, ['c3', 'c4']);
    t.writer.close();
    const ls = lines(t.path);
    const head = sha256Hex(ls[ls.length - 1] ?? '');
    const seq = ls.length;
    const good = signCheckpoint(user.signer, t.thread, seq - 1, head);
    const flipped = { ...good, sig: `${good.sig[0] === 'A' ? 'B' : 'A'}${good.sig.slice(1)}` };
    const line = `{"v":1,"seq":${seq},"ts":"2026-01-01T00:00:01.000Z","thread":"${t.thread}","type":"checkpoint","prev":"${head}","payload":${JSON.stringify(flipped)}}`;
    appendFileSync(t.path, `${line}\n`);
    // A writer holding the key goes on from there and seals over it.
    const writer = TranscriptWriter.open({
      mac: userMac,
      path: t.path,
      artifactsDir: t.artifacts,
      thread: t.thread,
      clock: t.clock,
      head: { seq, hash: sha256Hex(line) },
    });
    writeTurn(writer, ['c5', 'c6']);
    writer.checkpoint(user.signer);
    writer.close();
    return t;
  }

  it('both modes accept an untouched transcript with the same result', async () => {
    const t = sealedTranscript();
    const split = (): ReturnType<typeof splitLines> => splitLines(readFileSync(t.path));
    const last = verifyIn(t.path, t.thread, 'last');
    expect(verifyIn(t.path, t.thread, 'all')).toEqual(last);
    expect(verifyFile(t.path, t.thread)).toEqual(last);
    for (const checkpoints of modes)
      expect(
        await verifyTranscriptAsync(split(), {
          thread: t.thread,
          trust: user.trust,
          mac: userMac,
          checkpoints,
        }),
      ).toEqual(last);
  });

  it('a bad checkpoint signature sealed over by the key holder: accepted on resume, refused by an audit', async () => {
    const t = badSealCovered();
    const split = (): ReturnType<typeof splitLines> => splitLines(readFileSync(t.path));
    // The seal at seq 18 commits to every byte before it, seq 12 included: the key holder wrote it.
    expect(verifyIn(t.path, t.thread, 'last').lastCheckpointSeq).toBe(18);
    const audit = expectRyeError(() => verifyIn(t.path, t.thread, 'all'), 'TRANSCRIPT_TAMPERED');
    expect(audit.details['seq']).toBe(12);
    expect(audit.message).toContain('bad checkpoint');
    expect(
      (await verifyTranscriptAsync(split(), { thread: t.thread, trust: user.trust, mac: userMac }))
        .lastCheckpointSeq,
    ).toBe(18);
    const asyncAudit = await expectRyeErrorAsync(
      () =>
        verifyTranscriptAsync(split(), {
          thread: t.thread,
          trust: user.trust,
          mac: userMac,
          checkpoints: 'all',
        }),
      'TRANSCRIPT_TAMPERED',
    );
    expect(asyncAudit.details['seq']).toBe(12);
    // A mode this version does not know checks more, not less.
    expectRyeError(
      () =>
        verifyTranscript(split(), {
          thread: t.thread,
          trust: user.trust,
          mac: userMac,
          checkpoints: 'some' as 'all',
        }),
      'TRANSCRIPT_TAMPERED',
    );
  });

  it('without the key, a rewrite is refused in both modes at the first checkpoint after it', async () => {
    const t = sealedTranscript();
    const edited = lines(t.path);
    edited[8] = (edited[8] ?? '').replace('"c3"', '"cX"');
    for (let i = 9; i < edited.length; i += 1) {
      const event = JSON.parse(edited[i] ?? '') as {
        type: string;
        prev: string;
        payload: Record<string, unknown>;
      };
      event.prev = sha256Hex(edited[i - 1] ?? '');
      if (event.type === 'checkpoint') event.payload['head'] = event.prev;
      edited[i] = JSON.stringify(event);
    }
    writeFileSync(t.path, `${edited.join('\n')}\n`);
    const split = (): ReturnType<typeof splitLines> => splitLines(readFileSync(t.path));
    for (const checkpoints of modes) {
      const error = expectRyeError(
        () => verifyIn(t.path, t.thread, checkpoints),
        'TRANSCRIPT_TAMPERED',
      );
      expect(error.details['seq']).toBe(12);
      const viaPool = await expectRyeErrorAsync(
        () =>
          verifyTranscriptAsync(split(), {
            thread: t.thread,
            trust: user.trust,
            mac: userMac,
            checkpoints,
          }),
        'TRANSCRIPT_TAMPERED',
      );
      expect(viaPool.details['seq']).toBe(12);
    }
  });

  it('an earlier checkpoint by a key that is not trusted is refused in both modes', () => {
    const t = newTranscript();
    writeTurn(t.writer, ['c1']);
    t.writer.checkpoint(stranger.signer);
    writeTurn(t.writer, ['c2']);
    t.writer.checkpoint(user.signer);
    t.writer.close();
    for (const checkpoints of modes) {
      const error = expectRyeError(
        () => verifyIn(t.path, t.thread, checkpoints),
        'TRANSCRIPT_TAMPERED',
      );
      expect(error.details['seq']).toBe(4);
      expect(error.message).toContain('not trusted');
    }
  });
});
