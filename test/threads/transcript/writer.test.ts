import { readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../../src/integrity/index.js';
import {
  MAX_EVENT_BYTES,
  TranscriptWriter,
  resolveArtifacts,
  splitLines,
} from '../../../src/threads/transcript/index.js';
import { expectRyeError } from '../support.js';
import { newTranscript, user, userMac, verifyFile } from './transcript-fixtures.js';

describe('TranscriptWriter', () => {
  it('writes one line per event, each chained to the exact bytes of the line before', () => {
    const t = newTranscript();
    t.writer.append('system_prompt', { text: 'You implement features.' });
    t.writer.append('cognition_in', { content: '{"feature":"login"}' });
    t.writer.close();
    const bytes = readFileSync(t.path);
    const { lines, tornTail } = splitLines(bytes);
    expect(tornTail).toBeNull();
    expect(lines).toHaveLength(3);
    const events = lines.map((l) => JSON.parse(l.toString('utf8')) as Record<string, unknown>);
    expect(events.map((e) => [e['seq'], e['type']])).toEqual([
      [0, 'thread_created'],
      [1, 'system_prompt'],
      [2, 'cognition_in'],
    ]);
    expect(events[0]?.['prev']).toBeNull();
    expect(events[1]?.['prev']).toBe(sha256Hex(lines[0] ?? Buffer.alloc(0)));
    expect(events[2]?.['prev']).toBe(sha256Hex(lines[1] ?? Buffer.alloc(0)));
    expect(events[0]?.['ts']).toBe('2026-01-01T00:00:00.000Z');
    expect(Object.keys(events[0] ?? {})).toEqual([
      'v',
      'seq',
      'ts',
      'thread',
      'type',
      'prev',
      'payload',
      'mac',
    ]);
  });

  it('is byte-identical across runs with the same clock and ids', () => {
    const write = (): string => {
      const t = newTranscript();
      t.writer.append('cognition_in', { content: 'hi' });
      t.writer.checkpoint(user.signer);
      t.writer.close();
      return readFileSync(t.path, 'utf8');
    };
    expect(write()).toBe(write());
  });

  it('keeps raw newlines and U+2028/U+2029 inside one line, escaped', () => {
    const t = newTranscript();
    const text = 'a\nb\rc\u2028d\u2029e\u0085f';
    t.writer.append('cognition_in', { content: text });
    t.writer.close();
    const raw = readFileSync(t.path, 'utf8');
    expect(raw).not.toMatch(/[\u2028\u2029]/);
    expect(raw).toContain('\\u2028');
    const verified = verifyFile(t.path, t.thread);
    expect(verified.events).toHaveLength(2);
    expect(verified.events[1]?.payload['content']).toBe(text);
  });

  it('redacts capability tokens in values and keys before writing', () => {
    const t = newTranscript();
    const token = 'rye-cap-v1.eyJibG9ja3MiOltdfQ_-x';
    t.writer.append('tool_call_result', {
      call_id: 'c1',
      ok: true,
      output: { env: `RYE_CAP_TOKEN=${token}`, [token]: 1, nested: [[token]] },
      bytes: 1,
      truncated: false,
    });
    t.writer.close();
    const raw = readFileSync(t.path, 'utf8');
    expect(raw).not.toContain('eyJibG9ja3MiOltdfQ');
    expect(raw).toContain('rye-cap-v1.[redacted]');
    expect(verifyFile(t.path, t.thread).events).toHaveLength(2);
  });

  it('spills an oversized field to a content-addressed artifact and keeps the line under 512 KiB', () => {
    const t = newTranscript();
    const big = 'x'.repeat(MAX_EVENT_BYTES + 10);
    t.writer.append('tool_call_result', {
      call_id: 'c1',
      ok: true,
      output: big,
      bytes: big.length,
      truncated: false,
    });
    t.writer.close();
    const { lines } = splitLines(readFileSync(t.path));
    expect(lines[1]?.length).toBeLessThan(1024);
    const payload = (
      JSON.parse(lines[1]?.toString('utf8') ?? '') as { payload: Record<string, unknown> }
    ).payload;
    const json = JSON.stringify(big);
    expect(payload['output']).toEqual({
      $artifact: `sha256:${sha256Hex(json)}`,
      bytes: json.length,
    });
    expect(readdirSync(t.artifacts)).toEqual([sha256Hex(json)]);
    const [, resolved] = resolveArtifacts(verifyFile(t.path, t.thread).events, t.artifacts);
    expect(resolved?.payload['output']).toBe(big);
    expect(resolved?.payload['call_id']).toBe('c1');
  });

  it('spills a payload value that only looks like an artifact reference, so it cannot point at another artifact', () => {
    const t = newTranscript();
    const lookalike = { $artifact: `sha256:${'0'.repeat(64)}`, bytes: 2 };
    t.writer.append('tool_call_result', {
      call_id: 'c1',
      ok: true,
      output: lookalike,
      bytes: 1,
      truncated: false,
    });
    t.writer.close();
    const [, event] = resolveArtifacts(verifyFile(t.path, t.thread).events, t.artifacts);
    expect(event?.payload['output']).toEqual(lookalike);
  });

  it('refuses an event that stays too large with every field spilled', () => {
    const t = newTranscript();
    const fields = Object.fromEntries(
      Array.from({ length: 40_000 }, (_, i) => [`a_field_with_a_long_name_${i}`, i]),
    );
    expectRyeError(
      () => t.writer.append('cognition_in', { content: 'x', ...fields }),
      'TRANSCRIPT_EVENT_TOO_LARGE',
    );
    t.writer.close();
    expect(splitLines(readFileSync(t.path)).lines).toHaveLength(1);
  });

  it('refuses unknown types and non-object payloads, writing nothing', () => {
    const t = newTranscript();
    expectRyeError(() => t.writer.append('evil' as 'repair', {} as never), 'TRANSCRIPT_INVALID');
    expectRyeError(() => t.writer.append('cognition_in', [] as never), 'TRANSCRIPT_INVALID');
    expectRyeError(
      () => t.writer.append('cognition_in', { content: 1n } as never),
      'TRANSCRIPT_INVALID',
    );
    t.writer.close();
    expect(splitLines(readFileSync(t.path)).lines).toHaveLength(1);
  });

  it('never creates over an existing transcript, nor appends through a symbolic link', () => {
    const t = newTranscript();
    t.writer.close();
    const options = {
      path: t.path,
      artifactsDir: t.artifacts,
      thread: t.thread,
      clock: t.clock,
      mac: userMac,
    };
    expectRyeError(() => TranscriptWriter.open({ ...options, head: null }), 'FILE_WRITE_FAILED');
    const outside = join(t.dir, 'outside.txt');
    writeFileSync(outside, 'untouched\n');
    const link = join(t.dir, 'link.jsonl');
    symlinkSync(outside, link);
    expectRyeError(
      () =>
        TranscriptWriter.open({ ...options, path: link, head: { seq: 0, hash: 'a'.repeat(64) } }),
      'FILE_WRITE_FAILED',
    );
    expect(readFileSync(outside, 'utf8')).toBe('untouched\n');
  });

  it('refuses a thread id that is not one', () => {
    const t = newTranscript();
    t.writer.close();
    expectRyeError(
      () =>
        TranscriptWriter.open({
          path: join(t.dir, 'x'),
          artifactsDir: t.artifacts,
          thread: '../x',
          clock: t.clock,
          head: null,
          mac: userMac,
        }),
      'THREAD_ID_INVALID',
    );
  });

  it('checkpoints seal the line before them and verify against the user key', () => {
    const t = newTranscript();
    t.writer.append('cognition_in', { content: 'hi' });
    const checkpoint = t.writer.checkpoint(user.signer);
    t.writer.close();
    expect(checkpoint.payload).toMatchObject({ seq: 1, fp: user.signer.fingerprint });
    const verified = verifyFile(t.path, t.thread, true);
    expect(verified.lastCheckpointSeq).toBe(2);
    expect(verified.unsealed).toBe(0);
  });
});
