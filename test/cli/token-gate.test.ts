/**
 * Under a RYE_CAP_TOKEN every command is held to it, by default deny
 * (src/cli/token-gate.ts, docs/capabilities.md "Under a token"): only the
 * four operations, `mcp serve`, thread commands on threads the holder reaches
 * and an attenuating `cap mint` run; every other command is refused before it
 * touches anything.
 */
import { mkdtempSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CliIo } from '../../src/cli/context.js';
import { COMMANDS, VERSION } from '../../src/cli/main.js';
import { commandLeaves } from '../helpers/command-leaves.js';
import { runProgram } from '../../src/cli/program.js';
import { COMMANDS_UNDER_TOKEN, holderReaches } from '../../src/cli/token-gate.js';
import { readSigner } from '../../src/integrity/index.js';
import { keyDir } from '../../src/items/index.js';
import {
  appendTokenBlock,
  localTokenTrust,
  mintToken,
  newHolderKey,
  parseCapability,
  sealToken,
  type HolderKey,
} from '../../src/capabilities/index.js';
import { RegistryDb, registryDbPath } from '../../src/threads/store/index.js';
import { EXECUTE, markerRan, threadProject, type ThreadProject } from '../threads/loop/fixtures.js';

const CAPS = 'rye.execute.directive.demo/summarise,rye.execute.tool.t/echo,rye.load.knowledge.*';

/** Every file below `dir` with its size and mtime: what a refused command must leave as it was. */
function snapshot(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const path = join(d, name);
      const st = statSync(path);
      if (st.isDirectory()) walk(path);
      else out.push(`${relative(dir, path)} ${st.size} ${st.mtimeMs}`);
    }
  };
  walk(dir);
  return out.sort();
}

let p: ThreadProject;
let token: string;
let operatorThread: string;
let ceilingThread: string;
const answer = (text: string) => ({
  tool_calls: [{ name: 'directive_return', input: { outcome: 'success', answer: text } }],
  usage: { in: 100, out: 10 },
});

// Each test its own project (temp spaces go after each test).
beforeEach(async () => {
  p = await threadProject([
    { match: { directive: 'summarise' }, turns: [answer('one'), answer('two'), answer('three')] },
  ]);
  const minted = await p.run(['cap', 'mint', '--caps', CAPS, '--ttl', '1h', '--json']);
  expect(minted.code, minted.stdout).toBe(0);
  token = String(minted.json()['token']);
  const byOperator = await p.run([...EXECUTE, '--json']);
  expect(byOperator.code, byOperator.stdout).toBe(0);
  operatorThread = String(byOperator.json()['thread_id']);
  const byCeiling = await p.run([...EXECUTE, '--json'], { RYE_CAP_TOKEN: token });
  expect(byCeiling.code, byCeiling.stdout).toBe(0);
  ceilingThread = String(byCeiling.json()['thread_id']);
});
afterEach(async () => {
  await p.server.close();
});

const underToken = (args: readonly string[]) =>
  p.run([...args, '--json'], { RYE_CAP_TOKEN: token });
const errorOf = (res: { json<T>(): T }) =>
  res.json<{ error: { code: string; message: string } }>().error;

describe('under a RYE_CAP_TOKEN', () => {
  it('every command outside the allowed few is refused before it reads or writes anything', async () => {
    const refusedLeaves = (await commandLeaves()).filter(
      (l) => !COMMANDS_UNDER_TOKEN.includes(l.path.join(' ')),
    );
    expect(refusedLeaves.length).toBeGreaterThan(40);
    const before = [snapshot(p.project), snapshot(p.user)];
    const cwd = mkdtempSync(join(tmpdir(), 'rye-gate-'));
    for (const leaf of refusedLeaves) {
      let stdout = '';
      let stderr = '';
      const io: CliIo = {
        stdout: (t) => (stdout += t),
        stderr: (t) => (stderr += t),
        env: { ...p.env, RYE_CAP_TOKEN: token },
        cwd,
      };
      const own = new Set(leaf.options.map((o) => o.long));
      const argv = [
        ...leaf.path,
        ...leaf.args,
        // Mandatory options get a value, so the command reaches its action.
        ...leaf.options
          .filter((o) => o.mandatory)
          .flatMap((o) => [o.long as string, o.argChoices?.[0] ?? 'x']),
        ...(own.has('--project') ? ['--project', p.project] : []),
        ...(own.has('--json') ? ['--json'] : []),
      ];
      const code = await runProgram(argv, io, { version: VERSION, commands: COMMANDS });
      const what = argv.join(' ');
      expect(code, what).toBe(3);
      expect(stdout + stderr, what).toContain('CAPABILITY_COMMAND_REFUSED');
    }
    expect([snapshot(p.project), snapshot(p.user)]).toEqual(before);
  });

  it('thread commands reach the trees the ceiling started, and no other (existing or not, the same answer)', async () => {
    const own = await underToken(['thread', 'show', ceilingThread]);
    expect(own.code, own.stdout).toBe(0);
    const requests = p.server.requests.length;
    for (const args of [
      ['thread', 'show', operatorThread],
      ['thread', 'tail', operatorThread],
      ['thread', 'cancel', operatorThread],
      ['thread', 'wait', ceilingThread, operatorThread],
      ['thread', 'resume', operatorThread, '--message', 'go on'],
    ]) {
      const res = await underToken(args);
      expect(res.code, args.join(' ')).toBe(3);
      expect(errorOf(res).code).toBe('CAPABILITY_DENIED');
    }
    const ghost = await underToken(['thread', 'show', 'summarise-01arz3ndektsv4rrffq69g5fav']);
    expect(errorOf(ghost).code).toBe('CAPABILITY_DENIED');
    // The refused resume asked the provider nothing.
    expect(p.server.requests.length).toBe(requests);
    const list = await underToken(['thread', 'list']);
    expect(errorOf(list).code).toBe('CAPABILITY_COMMAND_REFUSED');
  });

  it('--no-sandbox is the operator’s: refused, and the tool never runs', async () => {
    const res = await underToken(['execute', 'tool', 't/echo', '--params', '{}', '--no-sandbox']);
    expect(res.code).toBe(3);
    expect(errorOf(res).code).toBe('CAPABILITY_COMMAND_REFUSED');
    expect(markerRan(p)).toBe(false);
  });

  it('thread resume --limit is the operator’s: refused on a thread the ceiling reaches, nothing sent or written', async () => {
    const before = [snapshot(p.project), snapshot(p.user)];
    const requests = p.server.requests.length;
    for (const limit of ['turns=20', 'spend=0.01']) {
      const res = await underToken([
        ...['thread', 'resume', ceilingThread, '--message', 'go on', '--limit', limit],
      ]);
      expect(res.code, res.stdout).toBe(3);
      expect(errorOf(res).code).toBe('CAPABILITY_COMMAND_REFUSED');
      expect(errorOf(res).message).toContain('--limit');
    }
    expect(p.server.requests.length).toBe(requests);
    expect([snapshot(p.project), snapshot(p.user)]).toEqual(before);
    // Without --limit the holder resumes the thread it reaches, as before.
    const plain = await underToken(['thread', 'resume', ceilingThread, '--message', 'go on']);
    expect(plain.code, plain.stdout).toBe(0);
  });

  it('cap mint only attenuates: never wider, never longer-lived than the token', async () => {
    const wider = await underToken(['cap', 'mint', '--caps', 'rye.execute.tool.*', '--ttl', '10m']);
    expect(errorOf(wider).code).toBe('CAPABILITY_DENIED');
    const longer = await underToken([
      'cap',
      'mint',
      '--caps',
      'rye.load.knowledge.*',
      '--ttl',
      '2h',
    ]);
    expect(errorOf(longer).code).toBe('CAPABILITY_DENIED');
    expect(errorOf(longer).message).toContain('never outlives it');
    const narrower = await underToken([
      'cap',
      'mint',
      '--caps',
      'rye.load.knowledge.*',
      '--ttl',
      '10m',
    ]);
    expect(narrower.code, narrower.stdout).toBe(0);
  });
});

/**
 * A running root R (may run every t/ tool) and its running child C (may only
 * load knowledge), as the registry of a live tree records them, and C's
 * token: R's chain plus C's block, sealed by C's key for this project. What
 * a process that got hold of C's presentation holds; R's key never left R.
 */
async function liveChildToken(): Promise<{
  presented: string;
  rootChain: string;
  childKey: HolderKey;
}> {
  const signer = await readSigner(keyDir(p.spaces));
  const { audience } = localTokenTrust(p.spaces);
  const [root, child] = [
    'summarise-01arz3ndektsv4rrffq69g5r00',
    'summarise-01arz3ndektsv4rrffq69g5c00',
  ];
  const [rootKey, childKey] = [newHolderKey(), newHolderKey()];
  const [rootJti, childJti] = ['1'.repeat(32), '2'.repeat(32)];
  const nbf = Math.floor(Date.now() / 1000) - 5;
  const rootChain = mintToken({
    signer,
    tree: root,
    thread: root,
    aud: audience,
    caps: [parseCapability('rye.execute.tool.t/*'), parseCapability('rye.load.knowledge.*')],
    nbf,
    jti: rootJti,
    holderPublicKey: rootKey.publicKey,
  });
  const childChain = appendTokenBlock(rootChain, {
    holder: rootKey,
    thread: child,
    caps: [parseCapability('rye.load.knowledge.*')],
    nbf,
    jti: childJti,
    holderPublicKey: childKey.publicKey,
  });
  const db = RegistryDb.open(registryDbPath(p.project));
  try {
    db.insertThread({
      threadId: root,
      treeId: root,
      parentId: null,
      directiveId: 'demo/summarise',
      status: 'running',
    });
    db.insertThread({
      threadId: child,
      treeId: root,
      parentId: root,
      directiveId: 'demo/summarise',
      status: 'running',
    });
    db.setJti(root, rootJti);
    db.setJti(child, childJti);
  } finally {
    db.close();
  }
  return { presented: sealToken(childChain, childKey, audience), rootChain, childKey };
}

describe('a thread’s token at the CLI', () => {
  const evil = ['execute', 'tool', 't/evil', '--params', '{}', '--json'];

  it('is accepted only as its holder sealed it; its bare chain and its parent’s prefix are refused and nothing runs', async () => {
    const { presented, rootChain, childKey } = await liveChildToken();
    // The presentation holds C to C's caps.
    const own = await p.run(['load', 'knowledge', 'notes/style', '--json'], {
      RYE_CAP_TOKEN: presented,
    });
    expect(own.code, own.stdout).toBe(0);
    const denied = await p.run(evil, { RYE_CAP_TOKEN: presented });
    expect(errorOf(denied).code).toBe('CAPABILITY_DENIED');
    // Cut back to R's chain (R runs, and may run t/evil): without R's key it is never R's.
    const seal = presented.split('.')[2] ?? '';
    const attempts: [string, string][] = [
      [presented.split('.').slice(0, 2).join('.'), 'unsealed'],
      [rootChain, 'unsealed'],
      [`${rootChain}.${seal}`, 'bad_seal'],
    ];
    for (const [token, why] of attempts) {
      const res = await p.run(evil, { RYE_CAP_TOKEN: token });
      expect(res.code, why).toBe(3);
      const error = res.json<{ error: { code: string; details: { reason: string } } }>().error;
      expect(error.code).toBe('CAPABILITY_TOKEN_INVALID');
      expect(error.details.reason).toBe(why);
    }
    // Nor can C's own key present R's chain.
    expect(() => sealToken(rootChain, childKey, localTokenTrust(p.spaces).audience)).toThrow(
      /last block holder/,
    );
    expect(markerRan(p)).toBe(false);
  });
});

describe('holderReaches', () => {
  it('a thread reaches its strict descendants; a ceiling the trees whose root it started', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rye-reach-'));
    const db = RegistryDb.open(join(dir, 'registry.db'));
    try {
      const id = (n: string) => `d-01arz3ndektsv4rrffq69g${n}`;
      db.insertThread({
        threadId: id('0001'),
        treeId: id('0001'),
        parentId: null,
        directiveId: 'd',
        ceilingJti: 'a'.repeat(32),
      });
      db.insertThread({
        threadId: id('0002'),
        treeId: id('0001'),
        parentId: id('0001'),
        directiveId: 'd',
      });
      db.insertThread({
        threadId: id('0003'),
        treeId: id('0001'),
        parentId: id('0002'),
        directiveId: 'd',
      });
      db.insertThread({
        threadId: id('0004'),
        treeId: id('0004'),
        parentId: null,
        directiveId: 'd',
      });
      const thread = { kind: 'thread', thread: id('0002'), exp: 0 } as const;
      expect(holderReaches(db, thread, id('0003'))).toBe(true);
      expect(holderReaches(db, thread, id('0002'))).toBe(false);
      expect(holderReaches(db, thread, id('0001'))).toBe(false);
      expect(holderReaches(db, thread, id('0004'))).toBe(false);
      const ceiling = { kind: 'ceiling', jti: 'a'.repeat(32), exp: 0 } as const;
      for (const n of ['0001', '0002', '0003'])
        expect(holderReaches(db, ceiling, id(n))).toBe(true);
      expect(holderReaches(db, ceiling, id('0004'))).toBe(false);
      expect(holderReaches(db, { ...ceiling, jti: 'b'.repeat(32) }, id('0001'))).toBe(false);
      expect(holderReaches(db, ceiling, 'not-a-thread')).toBe(false);
    } finally {
      db.close();
    }
  });
});
