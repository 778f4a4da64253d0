// Issue 13 benchmark: `directive.plan_ms`, the seed's build_crud_app orchestrator
// planned in process as `rye execute directive … --plan` does it (goal ≤ 5 ms):
// load it verified (cached verdict), parse its program, resolve its model from
// the signed system provider descriptor, list the ids its grants reach, meet its
// permissions with the operator's authority, render the prompt and tool
// definitions and price the worst case. Median of warm runs; the first is
// reported separately (`directive.plan_first_ms`).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import {
  ensureSelfTrusted,
  generateKeyFiles,
  keyDir,
  readSigner,
  resolveSpaces,
  signText,
} from '../dist/src/index.js';
import { operatorAuthority } from '../dist/src/capabilities/index.js';
import { planDirectiveOperation } from '../dist/src/threads/index.js';
import { median, report } from './util.mjs';

const FIXTURES = new URL('../test/fixtures/seed-directives/apps/task-manager/', import.meta.url);
const SYSTEM = new URL('../dist/system', import.meta.url).pathname;
const SEED_INPUTS = {
  name: 'task-manager',
  description: 'CRUD task manager with React frontend, Express API, SQLite database',
  features: 'create tasks, mark complete, delete, filter by status',
};
const RUNS = 200;

export async function run() {
  const root = mkdtempSync(join(tmpdir(), 'rye-bench-plan-'));
  try {
    const project = join(root, 'project');
    const user = join(root, 'user');
    const folder = join(project, '.ai/directives/apps/task-manager');
    mkdirSync(folder, { recursive: true });
    const env = {
      ...process.env,
      RYE_USER_SPACE: user,
      RYE_SYSTEM_SPACE: SYSTEM,
      RYE_CACHE_DIR: join(root, 'cache'),
    };
    const spaces = resolveSpaces({ project, env });
    await generateKeyFiles(keyDir(spaces));
    const signer = await readSigner(keyDir(spaces));
    await ensureSelfTrusted(spaces, signer);
    for (const name of [
      'build_crud_app',
      'scaffold_project',
      'implement_feature',
      'run_tests',
      'build_and_serve',
    ]) {
      const text = readFileSync(new URL(`${name}.md`, FIXTURES), 'utf8');
      writeFileSync(
        join(folder, `${name}.md`),
        signText(text, { itemType: 'directive', extension: '.md', signer }).text,
      );
    }
    const ctx = { spaces, env, authority: operatorAuthority() };
    const plan = () => planDirectiveOperation(ctx, 'apps/task-manager/build_crud_app', SEED_INPUTS);
    const first = performance.now();
    const result = await plan();
    const firstMs = performance.now() - first;
    if (result.model === null)
      throw new Error(`bench plan: no model (${result.model_error?.code})`);
    const times = [];
    for (let i = 0; i < RUNS; i += 1) {
      const start = performance.now();
      await plan();
      times.push(performance.now() - start);
    }
    report('directive.plan_ms', median(times), 'ms', { goal: 5, runs: RUNS });
    report('directive.plan_first_ms', firstMs, 'ms');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
