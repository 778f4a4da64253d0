// Issue 14 foundation benchmarks: hash-chained transcript appends (no fsync),
// verify (the last seal; every seal for the audit figure) + rebuild of a
// 50,000-event transcript, and ledger reserve → issue → settle cycles for 8
// concurrent children on the memory and SQLite stores.
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { loadavg } from 'node:os';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import {
  fingerprintOf,
  generateKeyPair,
  parsePrivateKey,
  parsePublicKey,
  trustSetOf,
} from '../dist/src/index.js';
import {
  attemptKeyOf,
  memoryBudgetStore,
  openSqliteBudgetStore,
} from '../dist/src/threads/budget/index.js';
import { fixedClock, newThreadId } from '../dist/src/ids/index.js';
import {
  TranscriptWriter,
  macKeyring,
  readTranscriptBytes,
  rebuildThread,
  resolveArtifacts,
  splitLines,
  verifyTranscriptAsync,
} from '../dist/src/threads/transcript/index.js';
import { signBytes, verifyBytes } from '../dist/src/integrity/index.js';
import { median, report } from './util.mjs';

const RESUME_EVENTS = 50_000;
/** Events per turn in the resume transcript: a checkpoint closes each. */
const TURN_EVENTS = 10;

function signerAndTrust() {
  const pair = generateKeyPair();
  const signer = {
    privateKey: parsePrivateKey(pair.privateKeyPem),
    fingerprint: fingerprintOf(pair.publicKeyPem),
  };
  const trust = trustSetOf([
    { ...parsePublicKey(pair.publicKeyPem), owner: 'bench', attestation: '', source: null },
  ]);
  return { signer, trust };
}

function created(thread) {
  return {
    directive: { id: 'apps/implement_feature', content_sha256: 'ab'.repeat(32), coverage: 'full' },
    inputs: { feature: 'login' },
    parent: null,
    tree: thread,
    depth: 0,
    caps: ['rye.execute.tool.rye/file-system/*'],
    caps_dropped: [],
    token: { jti: '00'.repeat(16), exp: 1_767_312_000 },
    limits: { turns: 25, spend: '1.00' },
    model: { provider: 'anthropic', id: 'claude-sonnet-4-20250514' },
    hooks_admitted: [],
  };
}

/** One turn's worth of typical events (model answer, two calls and results, budget). */
function* turnEvents(thread, turn) {
  const attempt = attemptKeyOf(thread, turn, 0);
  yield ['budget', { op: 'reserve', attempt_id: attempt, accounts: [thread], nanos: 120_000 }];
  yield ['budget', { op: 'issue', attempt_id: attempt, accounts: [thread], nanos: 120_000 }];
  yield [
    'cognition_out',
    {
      content: [
        { type: 'text', text: `Turn ${turn}: reading the plan, then writing the handler.` },
        {
          type: 'tool_call',
          id: `c${turn}a`,
          name: 'rye_load',
          input: { item_type: 'knowledge', item_id: 'api-design' },
        },
        {
          type: 'tool_call',
          id: `c${turn}b`,
          name: 'rye_execute',
          input: {
            item_type: 'tool',
            item_id: 'rye/file-system/fs_write',
            parameters: { path: `src/routes/r${turn}.js`, content: 'export const x = 1;\n' },
          },
        },
      ],
      stop_reason: 'tool_use',
      usage: { in: 2400, out: 180 },
      cost_nanos: 9900,
      provider_msg_id: `msg_${turn}`,
    },
  ];
  yield [
    'budget',
    { op: 'settle', attempt_id: attempt, accounts: [thread], nanos: 9900, basis: 'provider_usage' },
  ];
  yield [
    'tool_call_start',
    {
      call_id: `c${turn}a`,
      name: 'rye_load',
      input: {},
      required_cap: 'rye.load.knowledge.api-design',
    },
  ];
  yield [
    'tool_call_result',
    {
      call_id: `c${turn}a`,
      ok: true,
      output: { text: 'Use nouns for resources. '.repeat(8) },
      bytes: 200,
      truncated: false,
    },
  ];
  yield [
    'tool_call_start',
    {
      call_id: `c${turn}b`,
      name: 'rye_execute',
      input: {},
      required_cap: 'rye.execute.tool.rye/file-system/fs_write',
    },
  ];
  yield [
    'tool_call_result',
    {
      call_id: `c${turn}b`,
      ok: true,
      output: { written: `src/routes/r${turn}.js`, bytes: 20 },
      bytes: 40,
      truncated: false,
    },
  ];
  yield ['cognition_in', { content: 'Continue.' }];
}

function newTranscript(dir, leaf, mac) {
  const thread = newThreadId(leaf, fixedClock(1_767_225_600_000), (n) => new Uint8Array(n).fill(3));
  const artifactsDir = join(dir, leaf, 'artifacts');
  mkdirSync(artifactsDir, { recursive: true });
  const path = join(dir, leaf, 'transcript.jsonl');
  const writer = TranscriptWriter.open({
    path,
    artifactsDir,
    thread,
    clock: fixedClock(1_767_225_600_000, 1),
    head: null,
    mac,
  });
  writer.append('thread_created', created(thread));
  return { thread, path, artifactsDir, writer };
}

function benchAppend(dir, mac) {
  const t = newTranscript(dir, 'append', mac);
  const events = [...turnEvents(t.thread, 1)];
  let n = 0;
  for (let i = 0; i < 2000; i += 1)
    for (const [type, payload] of events) t.writer.append(type, payload); // warm-up
  const start = performance.now();
  let elapsed = 0;
  do {
    for (let i = 0; i < 1000; i += 1) {
      for (const [type, payload] of events) t.writer.append(type, payload);
      n += events.length;
    }
    elapsed = performance.now() - start;
  } while (elapsed < 1500);
  t.writer.close();
  report('transcript.append_events_per_s', (n / elapsed) * 1000, 'events/s', {
    fsync: false,
    mac: 'hmac-sha256-128',
    write_floor_per_s: Math.round(writeFloor(dir)),
    load_avg: Number(loadavg()[0]?.toFixed(2)),
    target: 100_000,
  });
}

/** One `write` syscall of a typical 400-byte line per event, nothing else: the floor under appends. */
function writeFloor(dir) {
  const fd = openSync(join(dir, 'floor.jsonl'), 'a');
  const line = Buffer.from(`${'x'.repeat(400)}\n`);
  let n = 0;
  const start = performance.now();
  while (performance.now() - start < 500) {
    for (let i = 0; i < 1000; i += 1) writeSync(fd, line);
    n += 1000;
  }
  const rate = (n / (performance.now() - start)) * 1000;
  closeSync(fd);
  return rate;
}

/** Median microseconds of one Ed25519 verification (one per checkpoint on resume). */
function ed25519VerifyMicros(signer, trust) {
  const message = Buffer.from('{"head":"00","seq":1,"thread":"t"}');
  const signature = signBytes(signer.privateKey, message);
  const key = [...trust.values()][0].key;
  const start = performance.now();
  for (let i = 0; i < 500; i += 1) verifyBytes(key, message, signature);
  return ((performance.now() - start) / 500) * 1000;
}

async function benchResume(dir, signer, trust) {
  const mac = macKeyring(signer);
  const t = newTranscript(dir, 'resume', mac);
  let written = 1;
  for (let turn = 1; written < RESUME_EVENTS; turn += 1) {
    for (const [type, payload] of turnEvents(t.thread, turn)) {
      if (written >= RESUME_EVENTS - 1) break;
      t.writer.append(type, payload);
      written += 1;
    }
    if (written < RESUME_EVENTS) {
      t.writer.checkpoint(signer);
      written += 1;
    }
  }
  t.writer.close();
  // Resume steps 4 and 6: verify every link and the seal, resolve artifacts, rebuild.
  const resume = async (checkpoints) => {
    const split = splitLines(readTranscriptBytes(t.path));
    const verified = await verifyTranscriptAsync(split, {
      thread: t.thread,
      trust,
      mac,
      checkpoints,
    });
    return rebuildThread(resolveArtifacts(verified.events, t.artifactsDir));
  };
  const rebuilt = await resume('last'); // warm-up
  const times = [];
  const cpu = [];
  for (let i = 0; i < 7; i += 1) {
    const start = performance.now();
    const before = process.cpuUsage();
    await resume('last');
    const used = process.cpuUsage(before);
    times.push(performance.now() - start);
    cpu.push((used.user + used.system) / 1000);
  }
  const audit = [];
  for (let i = 0; i < 3; i += 1) {
    const start = performance.now();
    await resume('all');
    audit.push(performance.now() - start);
  }
  report('transcript.resume_ms', median(times), 'ms', {
    events: written,
    events_per_checkpoint: TURN_EVENTS,
    checkpoints: Math.floor(written / TURN_EVENTS),
    signatures_checked: 1,
    cpu_ms: Number(median(cpu).toFixed(1)),
    audit_ms: Number(median(audit).toFixed(1)),
    ed25519_verify_us: Number(ed25519VerifyMicros(signer, trust).toFixed(1)),
    messages: rebuilt.messages.length,
    load_avg: Number(loadavg()[0]?.toFixed(2)),
    target: 500,
  });
}

async function benchLedger(name, store) {
  const id = (leaf, n) =>
    newThreadId(leaf, fixedClock(1_767_225_600_000 + n), (k) => new Uint8Array(k).fill(n));
  const root = id('root', 0);
  await store.openAccount({
    threadId: root,
    treeId: root,
    parentThreadId: null,
    limitNanos: Number.MAX_SAFE_INTEGER - 1,
  });
  const children = [];
  for (let i = 1; i <= 8; i += 1) {
    const child = id('child', i);
    children.push(child);
    await store.openAccount({
      threadId: child,
      treeId: root,
      parentThreadId: root,
      limitNanos: 1_000_000_000_000,
    });
  }
  let turn = 0;
  const round = () =>
    Promise.all(
      children.map(async (child) => {
        const attemptKey = attemptKeyOf(child, turn, 0);
        await store.reserve({
          attemptKey,
          threadId: child,
          requestSha256: 'ab'.repeat(32),
          worstNanos: 50_000,
        });
        await store.markIssued(attemptKey);
        await store.settle(attemptKey, 12_345);
      }),
    );
  for (turn = 0; turn < 50; turn += 1) await round(); // warm-up
  let cycles = 0;
  const start = performance.now();
  let elapsed = 0;
  do {
    await round();
    turn += 1;
    cycles += children.length;
    elapsed = performance.now() - start;
  } while (elapsed < 1500);
  store.dispose();
  report('ledger.reserve_settle_per_s', (cycles / elapsed) * 1000, 'cycles/s', {
    store: name,
    children: 8,
    load_avg: Number(loadavg()[0]?.toFixed(2)),
  });
}

export async function run() {
  const dir = mkdtempSync(join(tmpdir(), 'rye-bench-threads-'));
  try {
    const { signer, trust } = signerAndTrust();
    benchAppend(dir, macKeyring(signer));
    // The 50k-event transcript is built where fdatasync is cheap (tmpfs) when
    // there is one: building it costs one fsync per checkpoint, measuring it none.
    const shm = existsSync('/dev/shm') ? mkdtempSync('/dev/shm/rye-bench-') : null;
    try {
      await benchResume(shm ?? dir, signer, trust);
    } finally {
      if (shm !== null) rmSync(shm, { recursive: true, force: true });
    }
    await benchLedger('memory', memoryBudgetStore());
    await benchLedger('sqlite', openSqliteBudgetStore(join(dir, 'registry.db')));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
