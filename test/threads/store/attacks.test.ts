import { appendFileSync, existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixedClock } from '../../../src/ids/index.js';
import {
  acquireTreeLock,
  checkThreadDir,
  readThreadRecord,
  threadPaths,
  threadsRoot,
  treeLockPath,
  writeThreadRecord,
} from '../../../src/threads/store/index.js';
import {
  TranscriptWriter,
  macKeyring,
  readTranscriptBytes,
  rebuildThread,
  repairTranscript,
  resolveArtifacts,
  splitLines,
  verifyTranscript,
  type RebuiltThread,
} from '../../../src/threads/transcript/index.js';
import { makeSigner } from '../../helpers/keys.js';
import { expectRyeErrorAsync } from '../support.js';
import { record, tempProject, threadId } from './store-fixtures.js';

const user = makeSigner('user');
const stranger = makeSigner('stranger');
const userMac = macKeyring(user.signer);
const clock = fixedClock(1_767_225_600_000, 1);

/** A finished-turn thread on disk: signed record, 2 sealed turns, one spilled result. */
async function thread(): Promise<{
  project: string;
  id: string;
  paths: ReturnType<typeof threadPaths>;
}> {
  const project = tempProject();
  const id = threadId('implement_feature');
  const paths = threadPaths(project, id);
  checkThreadDir(project, paths, true);
  await writeThreadRecord(paths, record(id), user.signer);
  const w = TranscriptWriter.open({
    path: paths.transcript,
    artifactsDir: paths.artifacts,
    thread: id,
    clock,
    head: null,
    mac: userMac,
  });
  w.append('thread_created', {
    directive: { id: 'd', content_sha256: 'ab'.repeat(32), coverage: 'full' },
    inputs: {},
    parent: null,
    tree: id,
    depth: 0,
    caps: [],
    caps_dropped: [],
    token: null,
    limits: {},
    model: null,
    hooks_admitted: [],
  });
  w.append('cognition_in', { content: 'line one\nline two\u2028still two\u2029' });
  w.append('cognition_out', {
    content: [{ type: 'tool_call', id: 'c1', name: 'rye_load', input: {} }],
    stop_reason: 'tool_use',
    usage: { in: 5, out: 5 },
    cost_nanos: 1,
    provider_msg_id: null,
  });
  w.append('tool_call_result', {
    call_id: 'c1',
    ok: true,
    output: 'k'.repeat(700_000),
    bytes: 700_000,
    truncated: false,
  });
  w.checkpoint(user.signer);
  w.append('cognition_out', {
    content: [{ type: 'text', text: 'done' }],
    stop_reason: 'end_turn',
    usage: { in: 5, out: 5 },
    cost_nanos: 1,
    provider_msg_id: null,
  });
  w.checkpoint(user.signer);
  w.close();
  return { project, id, paths };
}

/** Resume steps 1, 2 and 4–6 of THREADS.md §10, built from the parts; the lock is always released. */
async function load(project: string, id: string): Promise<RebuiltThread> {
  const paths = threadPaths(project, id);
  const lock = acquireTreeLock(treeLockPath(project, id));
  try {
    checkThreadDir(project, paths);
    await readThreadRecord(paths, user.trust);
    const verified = verifyTranscript(splitLines(readTranscriptBytes(paths.transcript)), {
      thread: id,
      trust: user.trust,
      mac: userMac,
    });
    const events = resolveArtifacts(verified.events, paths.artifacts);
    const repaired = repairTranscript({
      path: paths.transcript,
      artifactsDir: paths.artifacts,
      thread: id,
      clock,
      signer: user.signer,
      verified,
    });
    repaired.writer.close();
    return rebuildThread([...events, ...repaired.appended]);
  } finally {
    lock.release();
  }
}

describe('attacks on a thread at rest', () => {
  it('an untouched thread loads; newlines and U+2028 come back as data in one message', async () => {
    const t = await thread();
    const rebuilt = await load(t.project, t.id);
    expect(rebuilt.messages[0]?.content[0]).toEqual({
      type: 'text',
      text: 'line one\nline two\u2028still two\u2029',
    });
    expect(rebuilt.messages[2]?.content[0]).toMatchObject({
      call_id: 'c1',
      content: 'k'.repeat(700_000),
    });
  });

  it('a transcript edited in the middle is refused naming its seq, and nothing is written', async () => {
    const t = await thread();
    const before = readFileSync(t.paths.transcript, 'utf8');
    writeFileSync(t.paths.transcript, before.replace('line one', 'line 0ne'));
    const error = await expectRyeErrorAsync(() => load(t.project, t.id), 'TRANSCRIPT_TAMPERED');
    expect(error.details['seq']).toBe(1);
    expect(readFileSync(t.paths.transcript, 'utf8')).toBe(before.replace('line one', 'line 0ne'));
    expect(existsSync(treeLockPath(t.project, t.id))).toBe(false);
  });

  it('a transcript cut mid-line is repaired, persisted and sealed', async () => {
    const t = await thread();
    appendFileSync(t.paths.transcript, '{"v":1,"seq":7,"ts":"2026');
    await load(t.project, t.id);
    const lines = readFileSync(t.paths.transcript, 'utf8').split('\n');
    expect(lines.at(-1)).toBe('');
    expect(lines.at(-3)).toContain('"type":"repair","prev"');
    expect(lines.at(-2)).toContain('"type":"checkpoint"');
    await load(t.project, t.id); // a second load finds nothing to repair
    expect(readFileSync(t.paths.transcript, 'utf8').split('\n')).toHaveLength(lines.length);
  });

  it('a checkpoint forged with another key is refused', async () => {
    const t = await thread();
    const verified = verifyTranscript(splitLines(readTranscriptBytes(t.paths.transcript)), {
      thread: t.id,
      trust: user.trust,
      mac: userMac,
    });
    const w = TranscriptWriter.open({
      path: t.paths.transcript,
      artifactsDir: t.paths.artifacts,
      thread: t.id,
      clock,
      head: verified.head,
      mac: macKeyring(stranger.signer),
    });
    w.append('cognition_in', { content: 'injected' });
    w.checkpoint(stranger.signer);
    w.close();
    const error = await expectRyeErrorAsync(() => load(t.project, t.id), 'TRANSCRIPT_TAMPERED');
    // The first line rye did not write is the injected event: its MAC is the stranger's.
    expect(error.details['seq']).toBe(verified.events.length);
    expect(error.message).toContain('MAC does not verify');
  });

  it('an edited thread.json is refused before the transcript is read', async () => {
    const t = await thread();
    const text = readFileSync(t.paths.record, 'utf8');
    writeFileSync(t.paths.record, text.replace('"depth": 0', '"depth": 1'));
    const transcript = readFileSync(t.paths.transcript);
    appendFileSync(t.paths.transcript, 'torn'); // a repair would have to write
    await expectRyeErrorAsync(() => load(t.project, t.id), 'THREAD_RECORD_INVALID');
    expect(readFileSync(t.paths.transcript)).toEqual(
      Buffer.concat([transcript, Buffer.from('torn')]),
    );
  });

  it('a tampered artifact is refused naming the event, and nothing is written', async () => {
    const t = await thread();
    const [hex = ''] = readdirSync(t.paths.artifacts).filter((f) => !f.startsWith('.'));
    writeFileSync(join(t.paths.artifacts, hex), JSON.stringify('j'.repeat(700_000)));
    const before = readFileSync(t.paths.transcript);
    const error = await expectRyeErrorAsync(() => load(t.project, t.id), 'TRANSCRIPT_TAMPERED');
    expect(error.details['seq']).toBe(3);
    expect(readFileSync(t.paths.transcript)).toEqual(before);
  });

  it('a thread id with ../ is refused before any path is touched', async () => {
    const t = await thread();
    await expectRyeErrorAsync(
      () => load(t.project, `../../x-${t.id.split('-')[1]}`),
      'THREAD_ID_INVALID',
    );
    expect(readdirSync(threadsRoot(t.project))).toEqual([t.id]);
  });

  it('a second loader is refused while the first holds the tree lock', async () => {
    const t = await thread();
    const held = acquireTreeLock(treeLockPath(t.project, t.id));
    const before = readFileSync(t.paths.transcript);
    appendFileSync(t.paths.transcript, 'torn');
    await expectRyeErrorAsync(() => load(t.project, t.id), 'THREAD_LOCKED');
    expect(readFileSync(t.paths.transcript)).toEqual(Buffer.concat([before, Buffer.from('torn')]));
    held.release();
    await load(t.project, t.id);
  });
});
