// Issue 15 benchmarks, the orchestration core (in process):
// - thread.spawn_to_first_request_ms: from the moment a parent's provider
//   answer asking for a child (`rye_execute` of a directive, `thread: "wait"`)
//   is back, to the child's first provider request: dispatch, the capability
//   check, planning the child (verified load, intersection, clamped limits),
//   its token block, thread.json, registry row, ledger account, transcript
//   head. p50 (goal ≤ 5 ms) and p99 (goal ≤ 50 ms) over SPAWNS children.
// - ledger.reserve_settle_per_s: reserve → issue → settle round trips per
//   second, 8 children racing under one root on the SQLite ledger (report).
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { signText } from '../dist/src/index.js';
import {
  attemptKeyOf,
  memoryBudgetStore,
  openSqliteBudgetStore,
} from '../dist/src/threads/budget/index.js';
import { operatorAuthority } from '../dist/src/capabilities/index.js';
import { returnSchemaOf } from '../dist/src/threads/directive/index.js';
import { runThread } from '../dist/src/threads/tree/index.js';
import { loadOperation } from '../dist/src/ops/index.js';
import { THREADS_PORT, planDirectiveOperation } from '../dist/src/threads/index.js';
import { benchProject } from './threads.mjs';
import { median, report } from './util.mjs';

const SPAWNS = Number(process.env.BENCH_SPAWNS ?? 200);

const directive = (name, permissions) => `# ${name}

\`\`\`xml
<directive name="${name}" version="1.0.0">
  <metadata>
    <description>Orchestration benchmark: ${name}.</description>
    <category>bench</category>
    <author>bench</author>
    <model tier="sonnet" id="claude-sonnet-4-20250514" />
    <limits max_turns="0" max_tokens="0" max_spend="0" max_tool_calls="0" max_spawns="0" />
    <permissions>${permissions}</permissions>
  </metadata>
  <inputs>
    <input name="topic" type="string" required="true">Topic</input>
  </inputs>
  <process>
    <step name="go"><description>Work on {input:topic}.</description></step>
  </process>
  <outputs>
    <output name="answer" type="string" required="true">The answer</output>
  </outputs>
</directive>
\`\`\`
`;

/** One in-process provider for the whole tree: the parent asks for a child each turn; a child returns at once. */
function treeClient(spawns, marks) {
  let parentTurns = 0;
  const reply = (call) => ({
    content: [{ type: 'tool_call', id: `c${marks.length}`, ...call }],
    stop_reason: 'tool_use',
    provider_stop_reason: 'tool_use',
    usage: { in: 1000, out: 20 },
    provider_msg_id: `m${marks.length}`,
    model: 'claude-sonnet-4-20250514',
  });
  const done = { name: 'directive_return', input: { outcome: 'success', answer: 'x' } };
  return {
    family: 'anthropic_messages',
    async send(request) {
      if (!request.system.includes('<directive name="bench_orch"')) {
        marks.childFirst.push(performance.now());
        return reply(done);
      }
      parentTurns += 1;
      const call =
        parentTurns <= spawns
          ? {
              name: 'rye_execute',
              input: {
                item_type: 'directive',
                item_id: 'bench/bench_child',
                inputs: { topic: 'x' },
                thread: 'wait',
              },
            }
          : done;
      const response = reply(call);
      if (parentTurns <= spawns) marks.parentAsked.push(performance.now());
      return response;
    },
  };
}

async function spawnToFirstRequest(p) {
  for (const [name, permissions] of [
    ['bench_orch', '<execute><directive>bench.bench_child</directive></execute>'],
    ['bench_child', '<load><knowledge>notes.*</knowledge></load>'],
  ])
    writeFileSync(
      join(p.project, `.ai/directives/bench/${name}.md`),
      signText(directive(name, permissions), {
        itemType: 'directive',
        extension: '.md',
        signer: p.signer,
      }).text,
    );
  const ops = {
    spaces: p.spaces,
    env: p.env,
    authority: operatorAuthority(),
    threads: THREADS_PORT,
  };
  const plan = await planDirectiveOperation(ops, 'bench/bench_orch', { topic: 'x' });
  const loaded = await loadOperation(ops, { item_type: 'directive', item_id: 'bench/bench_orch' });
  const marks = { parentAsked: [], childFirst: [] };
  const result = await runThread({
    projectRoot: p.project,
    ops,
    plan,
    returnSchema: returnSchemaOf(loaded.metadata.program),
    client: treeClient(SPAWNS, marks),
    signer: p.signer,
    budget: memoryBudgetStore(),
    onProgress: process.env.BENCH_DEBUG ? (l) => console.error(l) : undefined,
  });
  if (result.status !== 'completed') throw new Error(`bench orchestrator ended ${result.status}`);
  if (marks.childFirst.length !== SPAWNS)
    throw new Error('bench orchestrator: a child did not start');
  const gaps = marks.parentAsked.map((t, i) => marks.childFirst[i] - t).slice(10);
  const sorted = [...gaps].sort((a, b) => a - b);
  return { p50: median(gaps), p99: sorted[Math.floor(sorted.length * 0.99)] };
}

async function reserveSettle(dir) {
  const store = openSqliteBudgetStore(join(dir, 'registry.db'));
  const ROUNDS = 400;
  try {
    await store.openAccount({
      threadId: 'root-01jf0000000000000000000000',
      treeId: 'root-01jf0000000000000000000000',
      parentThreadId: null,
      limitNanos: null,
    });
    const children = Array.from(
      { length: 8 },
      (_, i) => `child-01jf00000000000000000000${String(i).padStart(2, '0')}`,
    );
    for (const id of children)
      await store.openAccount({
        threadId: id,
        treeId: 'root-01jf0000000000000000000000',
        parentThreadId: 'root-01jf0000000000000000000000',
        limitNanos: 1e15,
      });
    const start = performance.now();
    await Promise.all(
      children.map(async (id) => {
        for (let turn = 0; turn < ROUNDS; turn += 1) {
          const key = attemptKeyOf(id, turn, 1);
          await store.reserve({
            attemptKey: key,
            threadId: id,
            requestSha256: 'ab'.repeat(32),
            worstNanos: 1000,
          });
          await store.markIssued(key);
          await store.settle(key, 500);
        }
      }),
    );
    return (children.length * ROUNDS * 1000) / (performance.now() - start);
  } finally {
    store.dispose();
  }
}

export async function run() {
  // On tmpfs when there is one, as thread.turn_overhead_ms: the harness's work, not the disk's.
  const root = existsSync('/dev/shm')
    ? mkdtempSync('/dev/shm/rye-bench-orch-')
    : mkdtempSync(join(tmpdir(), 'rye-bench-orch-'));
  try {
    const p = await benchProject(join(root, 'spawn'));
    mkdirSync(join(p.project, '.ai/directives/bench'), { recursive: true });
    const { p50, p99 } = await spawnToFirstRequest(p);
    report('thread.spawn_to_first_request_ms', p50, 'ms', {
      goal: 5,
      p99_ms: Number(p99.toPrecision(4)),
      p99_goal: 50,
      spawns: SPAWNS,
      store: 'memory',
    });
    report('ledger.reserve_settle_per_s', await reserveSettle(root), 'ops/s', {
      children: 8,
      store: 'sqlite',
    });
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
