/**
 * A thread record signed by any key but the user's own is someone else's
 * thread (THREAD_RECORD_FOREIGN): `rye thread show` may display it; resume,
 * rebase, cancel and wait refuse it, and nothing is sent, written or run.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  fingerprintOf,
  formatTrustToml,
  generateKeyPair,
  parsePrivateKey,
} from '../../../src/integrity/index.js';
import {
  readThreadRecord,
  threadPaths,
  writeThreadRecord,
} from '../../../src/threads/store/index.js';
import { EXECUTE, threadProject, type ThreadProject } from '../loop/fixtures.js';

let open: ThreadProject | undefined;
afterEach(async () => {
  await open?.server.close();
  open = undefined;
});

const answer = (text: string) => ({
  tool_calls: [{ name: 'directive_return', input: { outcome: 'success', answer: text } }],
  usage: { in: 100, out: 10 },
});

describe('a thread record signed by another trusted key', () => {
  it('is shown but never resumed, cancelled or waited on (THREAD_RECORD_FOREIGN)', async () => {
    const p = (open = await threadProject([
      { match: { directive: 'summarise' }, turns: [answer('one'), answer('two')] },
    ]));
    const run = await p.run([...EXECUTE, '--json']);
    expect(run.code, run.stdout).toBe(0);
    const id = String(run.json()['thread_id']);
    const mine = await p.run(['thread', 'show', id, '--json']);
    expect(mine.json()).toMatchObject({ ok: true, foreign: false });

    // A project author's key, trusted in user space (as a pulled bundle's would be).
    const pair = generateKeyPair();
    const author = {
      privateKey: parsePrivateKey(pair.privateKeyPem),
      fingerprint: fingerprintOf(pair.publicKeyPem),
    };
    p.write(
      `.ai/trusted_keys/${author.fingerprint}.toml`,
      formatTrustToml({
        fingerprint: author.fingerprint,
        owner: 'author',
        attestation: '',
        publicKeyPem: pair.publicKeyPem,
      }),
      p.user,
    );
    const paths = threadPaths(p.project, id);
    const { loadTrustStore } = await import('../../../src/integrity/index.js');
    const { trustStores } = await import('../../../src/items/index.js');
    const trust = (await loadTrustStore(trustStores(p.spaces))).trust;
    const record = await readThreadRecord(paths, trust);
    // Re-signed by the author, with room for twenty more turns.
    await writeThreadRecord(paths, { ...record, limits: { ...record.limits, turns: 20 } }, author);
    const transcript = readFileSync(paths.transcript);
    const requests = p.server.requests.length;

    const shown = await p.run(['thread', 'show', id, '--json']);
    expect(shown.code, shown.stdout).toBe(0);
    expect(shown.json()).toMatchObject({ ok: true, foreign: true });
    for (const args of [
      ['thread', 'resume', id, '--message', 'go on'],
      ['thread', 'resume', id, '--message', 'go on', '--rebase'],
      ['thread', 'cancel', id],
      ['thread', 'wait', id],
    ]) {
      const res = await p.run([...args, '--json']);
      expect(res.code, `${args.join(' ')}: ${res.stdout}`).toBe(3);
      expect(res.json<{ error: { code: string } }>().error.code).toBe('THREAD_RECORD_FOREIGN');
    }
    expect(p.server.requests.length).toBe(requests);
    expect(readFileSync(paths.transcript)).toEqual(transcript);
    expect(readFileSync(join(paths.record), 'utf8')).toContain(author.fingerprint);
  });
});
