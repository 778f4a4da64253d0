/**
 * Scripted-provider scripts for the deterministic run of the worked example
 * (THREADS.md §15 A), generated from the reference app and its plans: every
 * file a thread writes is the reference file's text. Usage is fixed per turn
 * so costs are the same on every run.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ScriptEntry, ScriptToolCall, ScriptUsage } from '../scripted-provider/index.js';
import { APP_NAME, APP_SOURCE } from './example-paths.js';
import { readPlans, scaffoldFiles, type Plan } from './plans.js';

export const USAGE: ScriptUsage = { in: 900, out: 120 };
/** The commit date of each plan: fixed, one minute apart in wave order. */
export const COMMIT_DATES: Readonly<Record<string, string>> = {
  db_schema: '2026-02-11T00:01:00Z',
  api_routes: '2026-02-11T00:02:00Z',
  react_ui: '2026-02-11T00:03:00Z',
  integration: '2026-02-11T00:04:00Z',
  // Asked for on resume, after phase 1.
  add_priority: '2026-02-11T00:05:00Z',
};
const DIR = `apps/${APP_NAME}`;

const execTool = (item_id: string, parameters: Record<string, unknown>): ScriptToolCall => ({
  name: 'rye_execute',
  input: { item_type: 'tool', item_id, parameters },
});
/**
 * One fs_write of several app files (taken from `source`), as a model given
 * the `files` form writes a turn's files: one tool process, not one per file.
 */
const appWrite = (files: readonly string[], source = APP_SOURCE): ScriptToolCall =>
  execTool('rye/file-system/fs_write', {
    files: files.map((file) => ({
      path: `${APP_NAME}/${file}`,
      content: readFileSync(join(source, file), 'utf8'),
    })),
  });
const ret = (input: Record<string, unknown>): ScriptToolCall => ({
  name: 'directive_return',
  input,
});

/** scaffold_project: the files no plan writes (one call), a `rye/bash` attempt (outside the orchestrator's set), install. */
export function scaffoldScript(): ScriptEntry {
  return {
    match: { directive: 'scaffold_project' },
    turns: [
      {
        text: 'Creating the project structure.',
        tool_calls: [
          appWrite(scaffoldFiles(readPlans())),
          // The fixture's extra grant: dropped under the orchestrator, so this is denied there.
          execTool('rye/bash/bash', { command: 'npm install' }),
        ],
        usage: USAGE,
      },
      { tool_calls: [execTool(`${DIR}/dev_server`, { action: 'install' })], usage: USAGE },
      { tool_calls: [ret({ outcome: 'success' })], usage: USAGE },
    ],
  };
}

/**
 * implement_feature for one plan: read it, write its files in one call (taken
 * from `source`, the reference app by default), commit them, return the hash.
 */
export function implementScript(plan: Plan, source = APP_SOURCE): ScriptEntry {
  return {
    match: { directive: 'implement_feature', first_user_includes: `plan_${plan.name}.md` },
    turns: [
      { tool_calls: [execTool('rye/file-system/fs_read', { path: plan.path })], usage: USAGE },
      {
        text: `Writing ${plan.files.length} files.`,
        tool_calls: [appWrite(plan.files, source)],
        usage: USAGE,
      },
      {
        tool_calls: [
          execTool('rye/core/git', {
            repo: APP_NAME,
            app: APP_NAME,
            plan: plan.name,
            summary: plan.summary,
            paths: plan.commitPaths,
            date: COMMIT_DATES[plan.name],
          }),
        ],
        usage: USAGE,
      },
      {
        tool_calls: [ret({ outcome: 'success', commit_hash: '{{result.data.commit_hash}}' })],
        usage: USAGE,
      },
    ],
  };
}

/** run_tests: the suite through test_runner, the counts it reported. */
export function runTestsScript(): ScriptEntry {
  return {
    match: { directive: 'run_tests' },
    turns: [
      { tool_calls: [execTool(`${DIR}/test_runner`, { suite: 'all' })], usage: USAGE },
      {
        tool_calls: [
          ret({
            outcome: 'success',
            passed: '{{result.data.passed}}',
            failed: '{{result.data.failed}}',
            failures: '{{result.data.failures}}',
          }),
        ],
        usage: USAGE,
      },
    ],
  };
}

/** build_and_serve: build, start on a free loopback port, check GET /api/tasks, stop, return the URL. */
export function buildAndServeScript(): ScriptEntry {
  return {
    match: { directive: 'build_and_serve' },
    turns: [
      { tool_calls: [execTool(`${DIR}/build`, { target: 'all' })], usage: USAGE },
      { tool_calls: [execTool(`${DIR}/dev_server`, { action: 'start', port: 0 })], usage: USAGE },
      { tool_calls: [execTool(`${DIR}/dev_server`, { action: 'status' })], usage: USAGE },
      {
        tool_calls: [
          execTool(`${DIR}/dev_server`, { action: 'stop' }),
          ret({ outcome: 'success', url: '{{result.data.url}}' }),
        ],
        usage: USAGE,
      },
    ],
  };
}

/** Every child thread's script. */
export function childScripts(): ScriptEntry[] {
  return [
    scaffoldScript(),
    ...readPlans().map((plan) => implementScript(plan)),
    runTestsScript(),
    buildAndServeScript(),
  ];
}
