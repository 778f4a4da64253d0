import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  readThreadRecord,
  threadPaths,
  writeThreadRecord,
} from '../../../src/threads/store/index.js';
import { makeSigner } from '../../helpers/keys.js';
import { expectRyeErrorAsync } from '../support.js';
import { record, tempProject, threadId } from './store-fixtures.js';

const user = makeSigner('user');
const stranger = makeSigner('stranger');

async function written(): Promise<{
  project: string;
  id: string;
  paths: ReturnType<typeof threadPaths>;
}> {
  const project = tempProject();
  const id = threadId();
  const paths = threadPaths(project, id);
  await writeThreadRecord(paths, record(id), user.signer, new Date('2026-01-01T00:00:00Z'));
  return { project, id, paths };
}

describe('thread.json', () => {
  it('round-trips through a signature by the user key, written 0600', async () => {
    const { id, paths } = await written();
    expect(await readThreadRecord(paths, user.trust)).toEqual(record(id));
    const text = readFileSync(paths.record, 'utf8');
    expect(text).toMatch(/^\{\n {2}"_signature": "rye:signed:2026-01-01T00:00:00Z:[0-9a-f]{64}:/);
    expect(statSync(paths.record).mode & 0o777).toBe(0o600);
  });

  it('refuses a record edited after signing (a widened cap, a cheaper cost)', async () => {
    const { paths } = await written();
    const text = readFileSync(paths.record, 'utf8');
    writeFileSync(
      paths.record,
      text.replace('"rye.execute.directive.apps/*"', '"rye.execute.directive.*"'),
    );
    const error = await expectRyeErrorAsync(
      () => readThreadRecord(paths, user.trust),
      'THREAD_RECORD_INVALID',
    );
    expect(error.details['verdict']).toBe('hash_mismatch');
  });

  it('refuses a record signed by a key the user does not trust, or not signed at all', async () => {
    const project = tempProject();
    const id = threadId();
    const paths = threadPaths(project, id);
    await writeThreadRecord(paths, record(id), stranger.signer);
    await expectRyeErrorAsync(() => readThreadRecord(paths, user.trust), 'THREAD_RECORD_INVALID');
    writeFileSync(paths.record, JSON.stringify(record(id)));
    const error = await expectRyeErrorAsync(
      () => readThreadRecord(paths, user.trust),
      'THREAD_RECORD_INVALID',
    );
    expect(error.details['verdict']).toBe('unsigned');
  });

  it("refuses another thread's valid record copied into this thread's folder", async () => {
    const { project, paths } = await written();
    const other = threadPaths(project, threadId());
    mkdirSync(other.dir, { recursive: true });
    writeFileSync(other.record, readFileSync(paths.record));
    const error = await expectRyeErrorAsync(
      () => readThreadRecord(other, user.trust),
      'THREAD_RECORD_INVALID',
    );
    expect(error.message).toContain('record of thread');
  });

  it('refuses to sign a malformed record, and a missing record is THREAD_NOT_FOUND', async () => {
    const project = tempProject();
    const id = threadId();
    const paths = threadPaths(project, id);
    await expectRyeErrorAsync(
      () => writeThreadRecord(paths, { ...record(id), status: 'paused' as 'running' }, user.signer),
      'THREAD_RECORD_INVALID',
    );
    await expectRyeErrorAsync(
      () =>
        writeThreadRecord(
          paths,
          { ...record(id), cost: { ...record(id).cost, spend_nanos: -1 } },
          user.signer,
        ),
      'THREAD_RECORD_INVALID',
    );
    await expectRyeErrorAsync(
      () => writeThreadRecord(paths, record(threadId()), user.signer),
      'THREAD_RECORD_INVALID',
    );
    await expectRyeErrorAsync(() => readThreadRecord(paths, user.trust), 'THREAD_NOT_FOUND');
  });

  it('refuses an oversized record before parsing it', async () => {
    const { paths } = await written();
    writeFileSync(paths.record, ' '.repeat(4 * 1024 * 1024 + 1));
    await expectRyeErrorAsync(() => readThreadRecord(paths, user.trust), 'THREAD_RECORD_INVALID');
  });

  it('never writes a capability token', async () => {
    const project = tempProject();
    const id = threadId();
    const paths = threadPaths(project, id);
    await writeThreadRecord(
      paths,
      record(id, { inputs: { leaked: 'rye-cap-v1.c2VjcmV0' } }),
      user.signer,
    );
    expect(readFileSync(paths.record, 'utf8')).not.toContain('c2VjcmV0');
    expect((await readThreadRecord(paths, user.trust)).inputs).toEqual({
      leaked: 'rye-cap-v1.[redacted]',
    });
  });

  it('is rewritten atomically: a rewrite replaces the whole record', async () => {
    const { id, paths } = await written();
    await writeThreadRecord(
      paths,
      record(id, { status: 'completed', outputs: { ok: true } }),
      user.signer,
    );
    expect(await readThreadRecord(paths, user.trust)).toMatchObject({
      status: 'completed',
      outputs: { ok: true },
    });
  });
});
