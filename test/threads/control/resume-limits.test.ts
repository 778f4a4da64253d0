/**
 * Raising a limit is the operator's (issue 30, docs/threads.md "Raising a
 * limit"): `rye thread resume <id> --limit k=v` sets the thread's limits from
 * then on, higher or lower than its directive's, in a `limits_set` event signed
 * with the user key; later resumes take them from that event only, never from
 * the record alone. Real CLI against the scripted provider.
 */
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import {
  formatTrustToml,
  loadTrustStore,
  readSigner,
  type Signer,
} from '../../../src/integrity/index.js';
import { keyDir, trustStores } from '../../../src/items/index.js';
import { parseUsd } from '../../../src/threads/budget/index.js';
import { DEFAULT_LIMITS } from '../../../src/threads/directive/index.js';
import {
  RegistryDb,
  readThreadRecord,
  registryDbPath,
  threadPaths,
  writeThreadRecord,
} from '../../../src/threads/store/index.js';
import {
  TranscriptWriter,
  macKeyring,
  signLimitsSet,
  splitLines,
  verifyTranscript,
} from '../../../src/threads/transcript/index.js';
import type { BudgetStore } from '../../../src/threads/budget/index.js';
import type { DirectivePlan } from '../../../src/threads/admission/index.js';
import type { ThreadRecord } from '../../../src/threads/store/index.js';
import { refuseLimitsSet } from '../../../src/threads/control/resume-limits.js';
import { makeSigner } from '../../helpers/keys.js';
import { expectRyeErrorAsync } from '../support.js';
import {
  EXECUTE,
  ledgerOf,
  threadProject,
  verifiedEvents,
  type ThreadProject,
} from '../loop/fixtures.js';

let open: ThreadProject | undefined;
afterEach(async () => {
  await open?.server.close();
  open = undefined;
});

interface Result {
  ok: boolean;
  status: string;
  thread_id: string;
  error?: { code: string; message: string; details?: Record<string, unknown> };
  cost: { turns: number; spend_usd: string };
}

const LOAD = {
  tool_calls: [{ name: 'rye_load', input: { item_type: 'knowledge', item_id: 'notes/style' } }],
  usage: { in: 100, out: 10 },
};
const RETURN = {
  tool_calls: [{ name: 'directive_return', input: { outcome: 'success', answer: 'done' } }],
  usage: { in: 200, out: 20 },
};

/** A thread of a directive allowing 2 turns that stopped on THREAD_LIMIT_EXCEEDED{turns}. */
async function stoppedOnTurns(): Promise<{ p: ThreadProject; id: string }> {
  const p = (open = await threadProject(
    [{ match: { directive: 'summarise' }, turns: [LOAD, LOAD, LOAD, RETURN, LOAD, LOAD] }],
    { limits: 'max_turns="2" max_spend="0.50"' },
  ));
  const res = await p.run([...EXECUTE, '--json']);
  expect(res.code, res.stdout).toBe(1);
  const doc = res.json<Result>();
  expect(doc.error).toMatchObject({
    code: 'THREAD_LIMIT_EXCEEDED',
    details: { limit: 'turns', max: 2 },
  });
  return { p, id: doc.thread_id };
}

const transcriptOf = (p: ThreadProject, id: string) =>
  readFileSync(threadPaths(p.project, id).transcript);

/**
 * Append a `limits_set` raising turns to 1000, chained and MACed under the
 * user's thread key (as rye writes them) but signed by `by`; its seq.
 */
async function appendForeignLimitsSet(p: ThreadProject, id: string, by: Signer): Promise<number> {
  const paths = threadPaths(p.project, id);
  const signer = await readSigner(keyDir(p.spaces));
  const { trust } = await loadTrustStore(trustStores(p.spaces));
  const verified = verifyTranscript(splitLines(transcriptOf(p, id)), {
    thread: id,
    trust,
    mac: macKeyring(signer),
  });
  const writer = TranscriptWriter.open({
    path: paths.transcript,
    artifactsDir: paths.artifacts,
    thread: id,
    clock: { now: () => Date.now() },
    head: verified.head,
    mac: macKeyring(signer),
  });
  const seq = (verified.head?.seq ?? 0) + 1;
  const limits = { ...DEFAULT_LIMITS, turns: 1000 };
  writer.append('limits_set', signLimitsSet(by, id, seq, limits, limits));
  writer.close();
  return seq;
}
const recordOf = (p: ThreadProject, id: string) =>
  JSON.parse(readFileSync(threadPaths(p.project, id).record, 'utf8')) as {
    limits: Record<string, unknown>;
  };

describe('rye thread resume --limit', () => {
  it('raises the turns limit above the directive’s: the thread runs more turns, and a signed limits_set records it', async () => {
    const { p, id } = await stoppedOnTurns();
    const res = await p.run([
      'thread',
      'resume',
      id,
      '--message',
      'Go on.',
      '--limit',
      'turns=4',
      '--json',
    ]);
    expect(res.code, res.stdout + res.stderr).toBe(0);
    expect(res.json<Result>()).toMatchObject({ status: 'completed', cost: { turns: 4 } });
    expect(p.server.requests.length).toBe(4);
    const events = await verifiedEvents(p, id);
    const set = events.filter((e) => e.type === 'limits_set');
    expect(set.length).toBe(1);
    expect(set[0]?.payload).toMatchObject({
      limits: { turns: 4, spend: '0.50', tokens: DEFAULT_LIMITS.tokens },
      previous: { turns: 2, spend: '0.50' },
      fp: (await readSigner(keyDir(p.spaces))).fingerprint,
    });
    // verifiedEvents verified its signature; the record says the same.
    expect(recordOf(p, id).limits).toMatchObject({ turns: 4 });
  });

  it('a later resume without --limit keeps the raised limit, and stops at it', async () => {
    const { p, id } = await stoppedOnTurns();
    const first = await p.run(['thread', 'resume', id, '--message', 'a', '--limit', 'turns=5']);
    expect(first.code, first.stdout + first.stderr).toBe(0);
    // Completed at turn 4; a fifth turn is allowed only under the raised limit.
    const second = await p.run(['thread', 'resume', id, '--message', 'b', '--json']);
    const doc = second.json<Result>();
    expect(doc.error).toMatchObject({
      code: 'THREAD_LIMIT_EXCEEDED',
      details: { limit: 'turns', current: 5, max: 5 },
    });
    expect(p.server.requests.length).toBe(5);
    expect((await verifiedEvents(p, id)).filter((e) => e.type === 'limits_set').length).toBe(1);
  });

  it('sets spend in the ledger too (the account’s limit), higher or lower; never below what was spent', async () => {
    const { p, id } = await stoppedOnTurns();
    const raised = await p.run([
      'thread',
      'resume',
      id,
      '--message',
      'a',
      '--limit',
      'spend=2.25',
      '--limit',
      'turns=4',
      '--json',
    ]);
    expect(raised.code, raised.stdout).toBe(0);
    const spent = parseUsd(raised.json<Result>().cost.spend_usd, 'spend');
    const { snapshot } = await ledgerOf(p, id);
    expect(snapshot.accounts[0]?.limitNanos).toBe(parseUsd('2.25', 'spend'));
    expect(recordOf(p, id).limits).toMatchObject({ spend: '2.25', turns: 4 });
    // Below what the thread spent: refused before anything is written.
    const before = transcriptOf(p, id);
    const low = await p.run([
      'thread',
      'resume',
      id,
      '--message',
      'b',
      '--limit',
      `spend=0.000000001`,
      '--json',
    ]);
    expect(spent).toBeGreaterThan(1);
    expect(low.code).toBe(2);
    expect(low.json<Result>().error?.code).toBe('USAGE_INVALID_ARGUMENT');
    expect(transcriptOf(p, id).equals(before)).toBe(true);
    expect(p.server.requests.length).toBe(4);
  });

  it('a root’s ledger limit follows the transcript on every resume: a limit raised in registry.db alone is put back', async () => {
    const { p, id } = await stoppedOnTurns();
    const db = RegistryDb.open(registryDbPath(p.project));
    try {
      await db.budgetStore().setLimit(id, parseUsd('500', 'spend'));
    } finally {
      db.close();
    }
    await p.run(['thread', 'resume', id, '--message', 'a', '--json']);
    const { snapshot } = await ledgerOf(p, id);
    expect(snapshot.accounts[0]?.limitNanos).toBe(parseUsd('0.50', 'spend'));
  });

  it.each([['turns=-1'], ['nope=3'], ['turns'], ['spend=1.5.0']])(
    'a bad value (%s) is USAGE_INVALID_ARGUMENT: nothing sent, nothing written',
    async (bad) => {
      const { p, id } = await stoppedOnTurns();
      const before = [transcriptOf(p, id), readFileSync(threadPaths(p.project, id).record)];
      const res = await p.run(['thread', 'resume', id, '--message', 'a', '--limit', bad, '--json']);
      expect(res.code).toBe(2);
      expect(res.json<Result>().error?.code).toBe('USAGE_INVALID_ARGUMENT');
      expect(p.server.requests.length).toBe(2);
      expect(transcriptOf(p, id).equals(before[0]!)).toBe(true);
      expect(readFileSync(threadPaths(p.project, id).record).equals(before[1]!)).toBe(true);
    },
  );

  it('--limit with --rebase is refused before anything is read', async () => {
    const { p, id } = await stoppedOnTurns();
    const before = transcriptOf(p, id);
    const res = await p.run([
      ...['thread', 'resume', id, '--message', 'a', '--limit', 'turns=4', '--rebase', '--json'],
    ]);
    expect(res.code).toBe(2);
    expect(res.json<Result>().error?.code).toBe('USAGE_INVALID_ARGUMENT');
    expect(transcriptOf(p, id).equals(before)).toBe(true);
  });

  it('a limits_set signed by another key is refused (TRANSCRIPT_TAMPERED at its seq), though its MAC verifies: nothing sent', async () => {
    const { p, id } = await stoppedOnTurns();
    // Whoever holds the MAC key but not the signing key's intent: chained and MACed, signed by a stranger.
    const seq = await appendForeignLimitsSet(p, id, makeSigner().signer);
    const before = transcriptOf(p, id);
    const res = await p.run(['thread', 'resume', id, '--message', 'a', '--json']);
    expect(res.code).toBe(3);
    expect(res.json<Result>().error).toMatchObject({
      code: 'TRANSCRIPT_TAMPERED',
      details: { seq },
    });
    expect(p.server.requests.length).toBe(2);
    expect(transcriptOf(p, id).equals(before)).toBe(true);
  });

  it('a limits_set signed by another trusted key (a project author’s) fails `rye thread verify` as resume: only your key sets limits', async () => {
    const { p, id } = await stoppedOnTurns();
    const plain = await p.run(['thread', 'verify', id, '--json']);
    expect(plain.json()).toMatchObject({ ok: true, foreign: false });
    // An author's key, trusted in user space (as a pulled bundle's would be).
    const author = makeSigner('author');
    p.write(
      `.ai/trusted_keys/${author.signer.fingerprint}.toml`,
      formatTrustToml({
        fingerprint: author.signer.fingerprint,
        owner: 'author',
        attestation: '',
        publicKeyPem: author.publicKeyPem,
      }),
      p.user,
    );
    const seq = await appendForeignLimitsSet(p, id, author.signer);
    const before = transcriptOf(p, id);
    for (const args of [
      ['thread', 'verify', id],
      ['thread', 'resume', id, '--message', 'a'],
    ]) {
      const res = await p.run([...args, '--json']);
      expect(res.code, `${args.join(' ')}: ${res.stdout}`).toBe(3);
      expect(res.json<Result>().error).toMatchObject({
        code: 'TRANSCRIPT_TAMPERED',
        details: { seq },
      });
    }
    expect(p.server.requests.length).toBe(2);
    expect(transcriptOf(p, id).equals(before)).toBe(true);
  });

  it('a record re-signed with a higher limit does not raise it: without a limits_set the directive’s stands', async () => {
    const { p, id } = await stoppedOnTurns();
    const paths = threadPaths(p.project, id);
    const signer = await readSigner(keyDir(p.spaces));
    const { trust } = await loadTrustStore(trustStores(p.spaces));
    const record = await readThreadRecord(paths, trust, { own: signer.fingerprint });
    await writeThreadRecord(
      paths,
      { ...record, limits: { ...record.limits, turns: 10 } },
      signer,
      new Date(),
    );
    const res = await p.run(['thread', 'resume', id, '--message', 'a', '--json']);
    expect(res.json<Result>().error).toMatchObject({
      code: 'THREAD_LIMIT_EXCEEDED',
      details: { limit: 'turns', max: 2 },
    });
    expect(p.server.requests.length).toBe(2);
  });
});

describe('refuseLimitsSet', () => {
  it('refuses spend on a child (it spends from its parent’s budget) before the ledger is read, naming the root', async () => {
    const record = { thread_id: 'child-1', parent: 'root-1', tree: 'root-1' } as ThreadRecord;
    const budget = {} as BudgetStore;
    const plan = {} as DirectivePlan;
    const error = await expectRyeErrorAsync(
      () => refuseLimitsSet({ spend: '5.00' }, { record, plan, budget }),
      'USAGE_INVALID_ARGUMENT',
    );
    expect(error.details).toMatchObject({ limit: 'spend', root: 'root-1' });
    // Other limits of a child are the operator's to set.
    await refuseLimitsSet({ turns: 50 }, { record, plan, budget });
  });
});
