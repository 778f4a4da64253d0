// Issue 14 benchmarks, the thread runner:
// - thread.turn_overhead_ms: harness work per turn (p50), excluding provider
//   and tool time: from the end of one provider call to the start of the next,
//   with an in-process provider answering at once and a call the harness
//   answers itself (so no tool runs). Covers the limit checks, output-cap
//   planning, reserve/issue/settle, the transcript events, dispatch and the
//   signed checkpoint with its fdatasync. Goal ≤ 0.3 ms on the memory ledger.
// - thread.turn_overhead_sqlite_ms: the same on the SQLite ledger in registry.db.
// - thread.e2e_ms: a 10-turn thread through the CLI (`rye execute directive`)
//   against the scripted provider on loopback (bundled from test/support with
//   esbuild), process start to exit; median of 3 (report).
// - thread.cancel_notice_ms: from a cancel request recorded in registry.db (as
//   `rye thread cancel` records it, on another handle) to the owner's runThread
//   returning `cancelled`, sealed; the owner polls every 100 ms, so the goal is
//   ≤ ~100 ms at the median (of 7).
import { spawn } from 'node:child_process';
import {
  closeSync,
  existsSync,
  fdatasyncSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import {
  RyeError,
  ensureSelfTrusted,
  generateKeyFiles,
  keyDir,
  readSigner,
  resolveSpaces,
  signText,
} from '../dist/src/index.js';
import { memoryBudgetStore } from '../dist/src/threads/budget/index.js';
import { operatorAuthority } from '../dist/src/capabilities/index.js';
import { returnSchemaOf } from '../dist/src/threads/directive/index.js';
import { runThread } from '../dist/src/threads/tree/index.js';
import { CancelRequests, RegistryDb, registryDbPath } from '../dist/src/threads/store/index.js';
import { loadOperation } from '../dist/src/ops/index.js';
import { THREADS_PORT, planDirectiveOperation } from '../dist/src/threads/index.js';
import { median, report } from './util.mjs';

const SYSTEM = fileURLToPath(new URL('../dist/system', import.meta.url));
const RYE_BIN = fileURLToPath(new URL('../bin/rye.js', import.meta.url));
const TURNS = Number(process.env.BENCH_TURNS ?? 200);

const DIRECTIVE = `# Bench

\`\`\`xml
<directive name="bench_thread" version="1.0.0">
  <metadata>
    <description>A thread for the runner benchmarks.</description>
    <category>bench</category>
    <author>bench</author>
    <model tier="sonnet" id="claude-sonnet-4-20250514" />
    <limits max_turns="0" max_tokens="0" max_spend="0" max_tool_calls="0" />
    <permissions>
      <load>
        <knowledge>notes.*</knowledge>
      </load>
    </permissions>
  </metadata>
  <inputs>
    <input name="topic" type="string" required="true">Topic</input>
  </inputs>
  <process>
    <step name="read"><description>Read the notes on {input:topic}, then return.</description></step>
  </process>
  <outputs>
    <output name="answer" type="string" required="true">The answer</output>
  </outputs>
</directive>
\`\`\`
`;

const NOTES =
  '```yaml\nname: style\ntitle: Style\nentry_type: reference\nversion: "1.0.0"\ncategory: notes\n```\n\nPrefer short answers.\n';

export async function benchProject(root) {
  const project = join(root, 'project');
  const env = {
    ...process.env,
    RYE_USER_SPACE: join(root, 'user'),
    RYE_SYSTEM_SPACE: SYSTEM,
    RYE_CACHE_DIR: join(root, 'cache'),
  };
  const spaces = resolveSpaces({ project, env });
  await generateKeyFiles(keyDir(spaces));
  const signer = await readSigner(keyDir(spaces));
  await ensureSelfTrusted(spaces, signer);
  mkdirSync(join(project, '.ai/directives/bench'), { recursive: true });
  mkdirSync(join(project, '.ai/knowledge/notes'), { recursive: true });
  writeFileSync(
    join(project, '.ai/directives/bench/bench_thread.md'),
    signText(DIRECTIVE, { itemType: 'directive', extension: '.md', signer }).text,
  );
  writeFileSync(
    join(project, '.ai/knowledge/notes/style.md'),
    signText(NOTES, { itemType: 'knowledge', extension: '.md', signer }).text,
  );
  return { project, env, spaces, signer };
}

/** An in-process provider: a call the harness answers itself each turn, then a return. */
function instantClient(turns, marks) {
  let n = 0;
  const usage = { in: 1000, out: 20 };
  return {
    family: 'anthropic_messages',
    async send() {
      marks.push(performance.now());
      n += 1;
      const call =
        n < turns
          ? { type: 'tool_call', id: `c${n}`, name: 'not_offered', input: {} }
          : {
              type: 'tool_call',
              id: `c${n}`,
              name: 'directive_return',
              input: { outcome: 'success', answer: 'x' },
            };
      const response = {
        content: [call],
        stop_reason: 'tool_use',
        provider_stop_reason: 'tool_use',
        usage,
        provider_msg_id: `m${n}`,
        model: 'claude-sonnet-4-20250514',
      };
      marks.push(performance.now());
      return response;
    },
  };
}

async function turnOverhead(p, budget) {
  const ops = {
    spaces: p.spaces,
    env: p.env,
    authority: operatorAuthority(),
    threads: THREADS_PORT,
  };
  const plan = await planDirectiveOperation(ops, 'bench/bench_thread', { topic: 'x' });
  const loaded = await loadOperation(ops, {
    item_type: 'directive',
    item_id: 'bench/bench_thread',
  });
  const marks = [];
  const result = await runThread({
    projectRoot: p.project,
    ops,
    plan,
    returnSchema: returnSchemaOf(loaded.metadata.program),
    client: instantClient(TURNS, marks),
    signer: p.signer,
    ...(budget === undefined ? {} : { budget }),
  });
  if (result.status !== 'completed') throw new Error(`bench thread ended ${result.status}`);
  // marks: [start0, end0, start1, end1, …]: harness time is end(i) → start(i+1).
  const gaps = [];
  for (let i = 1; i + 1 < marks.length; i += 2) gaps.push(marks[i + 1] - marks[i]);
  return median(gaps.slice(10)); // after warm-up
}

/** A provider that never answers: its request ends only when the thread aborts it. */
function stalledClient(started) {
  return {
    family: 'anthropic_messages',
    send(_request, options) {
      started();
      return new Promise((_resolve, reject) => {
        const abort = () =>
          reject(new RyeError('PROVIDER_REQUEST_ABORTED', 'aborted', { reason: 'signal' }));
        if (options.signal.aborted) abort();
        else options.signal.addEventListener('abort', abort, { once: true });
      });
    },
  };
}

async function cancelNotice(p) {
  const ops = {
    spaces: p.spaces,
    env: p.env,
    authority: operatorAuthority(),
    threads: THREADS_PORT,
  };
  const plan = await planDirectiveOperation(ops, 'bench/bench_thread', { topic: 'x' });
  const times = [];
  // The stalled request holds no socket: keep the process up (the cancel watch is unref'd).
  const keepAlive = setInterval(() => undefined, 1000);
  for (let i = 0; i < 7; i += 1) {
    let started;
    const sent = new Promise((resolve) => (started = resolve));
    const running = runThread({
      projectRoot: p.project,
      ops,
      plan,
      returnSchema: undefined,
      client: stalledClient(() => started()),
      signer: p.signer,
    });
    await sent;
    const registry = RegistryDb.open(registryDbPath(p.project));
    const [row] = registry.list({ status: 'running' });
    const start = performance.now();
    new CancelRequests(registry.db).request(row.threadId, 'bench', Date.now());
    registry.close();
    const result = await running;
    times.push(performance.now() - start);
    if (result.status !== 'cancelled') throw new Error(`bench cancel: ended ${result.status}`);
  }
  clearInterval(keepAlive);
  return median(times);
}

async function bundleScriptedProvider(root) {
  const { build } = await import('esbuild');
  const outfile = join(root, 'scripted-provider.mjs');
  await build({
    entryPoints: [
      fileURLToPath(new URL('../test/support/scripted-provider/index.ts', import.meta.url)),
    ],
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile,
    logLevel: 'silent',
  });
  return import(outfile);
}

function cli(args, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [RYE_BIN, ...args], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out }));
  });
}

async function e2e(root) {
  const { startScriptedProvider } = await bundleScriptedProvider(root);
  const load = { name: 'rye_load', input: { item_type: 'knowledge', item_id: 'notes/style' } };
  const turns = [
    ...Array.from({ length: 9 }, () => ({ tool_calls: [load], usage: { in: 1000, out: 20 } })),
    { tool_calls: [{ name: 'directive_return', input: { outcome: 'success', answer: 'x' } }] },
  ];
  const times = [];
  for (let i = 0; i < 3; i += 1) {
    const p = await benchProject(join(root, `e2e${i}`));
    const server = await startScriptedProvider({
      script: [{ match: { directive: 'bench_thread' }, turns }],
    });
    try {
      const env = { ...p.env, ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: server.url };
      const args = [
        'execute',
        'directive',
        'bench/bench_thread',
        '--inputs',
        '{"topic":"x"}',
        '--json',
        '--project',
        p.project,
      ];
      const start = performance.now();
      const res = await cli(args, env);
      times.push(performance.now() - start);
      const doc = JSON.parse(res.out);
      if (res.code !== 0 || doc.cost.turns !== 10)
        throw new Error(`bench e2e thread: exit ${res.code}, ${res.out.slice(0, 300)}`);
    } finally {
      await server.close();
    }
  }
  return median(times);
}

/** fdatasync of one short append on the temp folder's disk, p50 (what each checkpoint adds there). */
function fdatasyncMs(dir) {
  const fd = openSync(join(dir, 'sync-probe'), 'w');
  const times = [];
  try {
    for (let i = 0; i < 100; i += 1) {
      writeSync(fd, `${'x'.repeat(300)}\n`);
      const start = performance.now();
      fdatasyncSync(fd);
      times.push(performance.now() - start);
    }
  } finally {
    closeSync(fd);
  }
  return median(times);
}

export async function run() {
  const root = mkdtempSync(join(tmpdir(), 'rye-bench-threads-'));
  // The per-turn figures run on tmpfs when there is one, so they measure the
  // harness's work and not the disk: each checkpoint's fdatasync (THREADS.md §9)
  // adds what `fdatasync_ms` reports for the temp folder's disk.
  const shm = existsSync('/dev/shm') ? mkdtempSync('/dev/shm/rye-bench-threads-') : root;
  const sync = {
    dir: shm === root ? 'tmpdir' : 'tmpfs',
    fdatasync_ms: Number(fdatasyncMs(root).toPrecision(4)),
  };
  try {
    const memory = await benchProject(join(shm, 'memory'));
    report('thread.turn_overhead_ms', await turnOverhead(memory, memoryBudgetStore()), 'ms', {
      goal: 0.3,
      turns: TURNS,
      store: 'memory',
      ...sync,
    });
    const sqlite = await benchProject(join(shm, 'sqlite'));
    report('thread.turn_overhead_sqlite_ms', await turnOverhead(sqlite, undefined), 'ms', {
      turns: TURNS,
      store: 'sqlite',
      ...sync,
    });
    report('thread.cancel_notice_ms', await cancelNotice(sqlite), 'ms', {
      goal: 100,
      poll_ms: 100,
      runs: 7,
    });
    if (process.env.BENCH_SKIP_E2E !== '1')
      report('thread.e2e_ms', await e2e(root), 'ms', { turns: 10, runs: 3 });
  } finally {
    rmSync(root, { recursive: true, force: true });
    if (shm !== root) rmSync(shm, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
