// Issue 17 groundwork, the worked example's tools: the per-call floor of the
// task-manager run, whose ~40 tool calls are each a node process.
// - example.fs_write_call_ms: one rye/file-system/fs_write through execute()
//   (chain verified, snapshot, node started, file written), median of 15.
// - example.git_commit_call_ms: one rye/core/git commit of one changed file,
//   median of 8.
// - example.task_manager_e2e_ms: the deterministic run (THREADS.md §15 A) of
//   `rye execute directive apps/task-manager/build_crud_app --json`, the
//   scripted provider playing every thread (the test suite's scripts):
//   knowledge, plans, scaffold, three waves, tests, build, the after_complete
//   hook serving the app; CLI spawn to exit, median of 3.
// example.orchestration_overhead_ms is not measured yet.
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
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

function cli(args, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(REPO, 'bin', 'rye.js'), ...args], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out }));
  });
}

async function taskManagerE2e(root) {
  const { startScriptedProvider, ORCHESTRATOR_INPUTS, orchestratorScript, childScripts } =
    await importExampleScripts(root);
  const times = [];
  for (let i = 0; i < E2E_RUNS; i += 1) {
    const p = await exampleProject(join(root, `e2e${i}`));
    const server = await startScriptedProvider({
      script: [orchestratorScript(), ...childScripts()],
    });
    try {
      const env = { ...p.env, ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: server.url };
      const args = ['execute', 'directive', 'apps/task-manager/build_crud_app'];
      args.push('--inputs', JSON.stringify(ORCHESTRATOR_INPUTS), '--json');
      const start = performance.now();
      const res = await cli([...args, '--project', p.project], env);
      times.push(performance.now() - start);
      if (res.code !== 0 || server.problems.length > 0)
        throw new Error(`bench task-manager e2e: exit ${res.code}, ${res.out.slice(0, 300)}`);
    } finally {
      await server.close();
    }
  }
  return median(times);
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
    report('example.task_manager_e2e_ms', await taskManagerE2e(root), 'ms');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
