// Issue 17 groundwork, the worked example's tools: the per-call floor of the
// task-manager run, whose tool calls are each a node process (21 a run: each
// thread writes a turn's files in one fs_write call; one per file was 37).
// - example.fs_write_call_ms: one rye/file-system/fs_write through execute()
//   (chain verified, snapshot, node started, file written), median of 15.
// - example.git_commit_call_ms: one rye/core/git commit of one changed file,
//   median of 8.
// - example.task_manager_e2e_ms: the deterministic run (THREADS.md §15 A) of
//   apps/task-manager/build_crud_app in this process (runRootThread, as
//   `rye execute directive` calls it), the scripted provider playing every
//   thread (the test suite's scripts): knowledge, plans, scaffold, three
//   waves, tests, build, the after_complete hook serving the app; median of 3.
// - example.orchestration_overhead_ms: the same runs' wall time during which
//   neither a tool's process nor the scripted provider was working (the union
//   of node process lifetimes, through a RYE_NODE wrapper that logs them, and
//   of provider requests, subtracted from the wall time); median of 3.
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import {
  ensureSelfTrusted,
  execute,
  generateKeyFiles,
  keyDir,
  readSigner,
  resolveSpaces,
  selectItems,
  signItemFile,
} from '../dist/src/index.js';
import { operatorAuthority } from '../dist/src/ops/index.js';
import { THREADS_PORT, runRootThread } from '../dist/src/threads/index.js';
import { importExampleScripts } from '../scripts/example-scripts.mjs';
import { median, report } from './util.mjs';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const E2E_RUNS = 3;

async function timed(count, call) {
  await call(-1); // warm-up: verdict cache, snapshot
  const times = [];
  for (let i = 0; i < count; i += 1) {
    const start = performance.now();
    await call(i);
    times.push(performance.now() - start);
  }
  return median(times);
}

/** A project holding the example's items, signed with a fresh user key. */
async function exampleProject(dir) {
  const project = join(dir, 'project');
  cpSync(join(REPO, 'examples', 'task-manager', '.ai'), join(project, '.ai'), { recursive: true });
  const env = {
    ...process.env,
    RYE_USER_SPACE: join(dir, 'user'),
    RYE_SYSTEM_SPACE: join(REPO, 'dist', 'system'),
    RYE_CACHE_DIR: join(dir, 'cache'),
  };
  delete env.RYE_CAP_TOKEN;
  const spaces = resolveSpaces({ project, env });
  await generateKeyFiles(keyDir(spaces));
  const signer = await readSigner(keyDir(spaces));
  await ensureSelfTrusted(spaces, signer);
  for (const type of ['directive', 'tool', 'knowledge'])
    for (const item of await selectItems(spaces, type, 'apps/task-manager/**', ['project']))
      await signItemFile(item, signer);
  return { project, env };
}

/**
 * A RYE_NODE for the node runtime that logs each tool process's lifetime
 * (epoch ms, start and end) to `log`. Tools spawn git and `node --test`
 * themselves: those run inside their tool's lifetime.
 */
function timedNode(dir) {
  const log = join(dir, 'node-lifetimes.log');
  const wrapper = join(dir, 'timed-node.sh');
  writeFileSync(
    wrapper,
    `#!/bin/sh
s=$(date +%s%N)
${JSON.stringify(process.execPath)} "$@"
rc=$?
echo "$s $(date +%s%N)" >> ${JSON.stringify(log)}
exit $rc
`,
    { mode: 0o755 },
  );
  const intervals = () =>
    existsSync(log)
      ? readFileSync(log, 'utf8')
          .trim()
          .split('\n')
          .map((line) => line.split(' ').map((ns) => Number(BigInt(ns) / 1000n) / 1000))
      : [];
  return { wrapper, intervals };
}

/** The length of the union of [start, end] intervals. */
function unionLength(intervals) {
  const sorted = [...intervals].sort((a, b) => a[0] - b[0]);
  let total = 0;
  let [from, to] = [-Infinity, -Infinity];
  for (const [start, end] of sorted) {
    if (start > to) {
      if (to > from) total += to - from;
      [from, to] = [start, end];
    } else to = Math.max(to, end);
  }
  return to > from ? total + to - from : total;
}

async function taskManagerE2e(root, sandbox = 'on') {
  const { startScriptedProvider, ORCHESTRATOR_INPUTS, orchestratorScript, childScripts } =
    await importExampleScripts(root);
  const walls = [];
  const overheads = [];
  for (let i = 0; i < E2E_RUNS; i += 1) {
    const dir = join(root, `e2e-${sandbox}-${i}`);
    const p = await exampleProject(dir);
    const node = timedNode(dir);
    const server = await startScriptedProvider({
      script: [orchestratorScript(), ...childScripts()],
    });
    try {
      const env = {
        ...p.env,
        ANTHROPIC_API_KEY: 'test-key',
        ANTHROPIC_BASE_URL: server.url,
        RYE_NODE: node.wrapper,
      };
      const ops = {
        spaces: resolveSpaces({ project: p.project, env }),
        env,
        authority: operatorAuthority(),
        threads: THREADS_PORT,
        ...(sandbox === 'off' ? { sandbox: 'off' } : {}),
      };
      const startMs = performance.timeOrigin + performance.now();
      const result = await runRootThread(
        ops,
        'apps/task-manager/build_crud_app',
        ORCHESTRATOR_INPUTS,
      );
      const endMs = performance.timeOrigin + performance.now();
      if (result.status !== 'completed' || server.problems.length > 0)
        throw new Error(
          `bench task-manager e2e: ${result.status} ${JSON.stringify(result.error ?? server.problems)}`,
        );
      const provider = server.requests.map((r) => [r.startedMs, r.finishedMs ?? endMs]);
      const busy = [...node.intervals(), ...provider]
        .map(([a, b]) => [Math.max(a, startMs), Math.min(b, endMs)])
        .filter(([a, b]) => b > a);
      walls.push(endMs - startMs);
      overheads.push(endMs - startMs - unionLength(busy));
    } finally {
      await server.close();
    }
  }
  return { wall: median(walls), overhead: median(overheads) };
}

export async function run() {
  const root = mkdtempSync(join(tmpdir(), 'rye-bench-example-'));
  try {
    mkdirSync(join(root, 'project'));
    const env = { ...process.env, RYE_USER_SPACE: join(root, 'user') };
    const spaces = resolveSpaces({ project: join(root, 'project'), env });
    const tool = async (toolId, params) => {
      const result = await execute({ spaces, toolId, params, env });
      if (result.status !== 'success')
        throw new Error(`${toolId}: ${JSON.stringify(result.error)}`);
    };
    const write = (i) =>
      tool('rye/file-system/fs_write', { path: `app/f${i + 1}.txt`, content: `file ${i}\n` });
    report('example.fs_write_call_ms', await timed(15, write), 'ms');
    const commit = async (i) => {
      await write(100 + i);
      const date = `2026-02-11T00:${String(i + 1).padStart(2, '0')}:00Z`;
      await tool('rye/core/git', { repo: 'app', message: `c${i}`, date });
    };
    const withWrite = await timed(8, commit);
    report('example.git_commit_call_ms', withWrite - (await timed(8, (i) => write(200 + i))), 'ms');
    const e2e = await taskManagerE2e(root);
    report('example.task_manager_e2e_ms', e2e.wall, 'ms');
    report('example.orchestration_overhead_ms', e2e.overhead, 'ms');
    // The same tree with every tool unsandboxed (the operator's sandbox: off), in the same run.
    const bare = await taskManagerE2e(root, 'off');
    report('example.task_manager_e2e_bare_ms', bare.wall, 'ms');
    report('example.task_manager_e2e_sandboxed_vs_bare', e2e.wall / bare.wall, 'ratio', {
      goal: 1.1,
    });
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
