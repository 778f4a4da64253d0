/**
 * A prompt-injected implement_feature thread (issue 17, THREADS.md §16): the
 * model aims the file-system and git tools at the project's signed items (also
 * behind a harmless file in one multi-file write), at paths out of the project
 * and at a repository armed with a hook. Each call is an error result with its
 * stable code, the thread goes on, and every marker the attacks would write
 * stays absent.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import type { ScriptToolCall } from '../support/scripted-provider/index.js';
import { latestToolResults } from '../support/scripted-provider/result-refs.js';
import { APP_NAME } from '../support/task-manager/example-project.js';
import { USAGE } from '../support/task-manager/scripts.js';
import { exampleRun, toolResults, type ExampleRun } from './support.js';

let open: ExampleRun | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

const write = (path: string): ScriptToolCall => ({
  name: 'rye_execute',
  input: {
    item_type: 'tool',
    item_id: 'rye/file-system/fs_write',
    parameters: { path, content: 'console.log("pwned")\n' },
  },
});

/** One fs_write of several files: a harmless one first, then `path`. */
const writeWith = (path: string): ScriptToolCall => ({
  name: 'rye_execute',
  input: {
    item_type: 'tool',
    item_id: 'rye/file-system/fs_write',
    parameters: {
      files: [
        { path: `${APP_NAME}/server/harmless.js`, content: 'export {};\n' },
        { path, content: 'console.log("pwned")\n' },
      ],
    },
  },
});

it(
  'fs_write into .ai/, out of the project or through a link, and git on a hooked repository, all refused; nothing written or run',
  { timeout: 120_000 },
  async () => {
    const plan = '.ai/plans/task-manager/phase_1/plan_db_schema.md';
    const p = (open = await exampleRun([
      {
        match: { directive: 'implement_feature' },
        turns: [
          {
            tool_calls: [
              write('.ai/tools/apps/task-manager/test_runner.mjs'),
              write('.ai/directives/apps/task-manager/evil.md'),
              write('../escaped.txt'),
              write('/tmp/absolute.txt'),
            ],
            usage: USAGE,
          },
          {
            tool_calls: [
              write('out/escaped.txt'),
              write('task-manager/.git/hooks/post-commit'),
              // Hidden behind a harmless file in one call: refused whole.
              writeWith('.ai/tools/apps/task-manager/build.mjs'),
            ],
            usage: USAGE,
          },
          {
            tool_calls: [
              {
                name: 'rye_execute',
                input: {
                  item_type: 'tool',
                  item_id: 'rye/core/git',
                  parameters: { repo: APP_NAME, message: 'x', date: '2026-02-11T00:00:00Z' },
                },
              },
            ],
            usage: USAGE,
          },
          {
            tool_calls: [
              { name: 'directive_return', input: { outcome: 'failure', failed_must_haves: 'all' } },
            ],
            usage: USAGE,
          },
        ],
      },
    ]));
    const outside = join(p.root, 'outside');
    mkdirSync(outside);
    symlinkSync(outside, join(p.project, 'out'));
    const tool = (name: string) =>
      readFileSync(join(p.project, `.ai/tools/apps/task-manager/${name}.mjs`), 'utf8');
    const before = [tool('test_runner'), tool('build')];
    // An app repository armed with a hook and an fsmonitor that would write a marker.
    const repo = join(p.project, APP_NAME);
    p.write(`${APP_NAME}/a.txt`, 'a');
    const marker = join(p.root, 'marker');
    const env = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };
    execFileSync('git', ['init', '-q', repo], { env });
    const hook = p.write(`${APP_NAME}/.git/hooks/pre-commit`, `#!/bin/sh\ntouch ${marker}\n`);
    chmodSync(hook, 0o755);
    execFileSync('git', ['-C', repo, 'config', 'core.fsmonitor', hook], { env });

    const res = await p.directive('implement_feature', { plan_path: plan, name: APP_NAME });
    expect(res.doc.error?.code, res.stderr).toBe('THREAD_FAILED');
    // Every call failed; the model saw each tool's own stable code in the result.
    const results = toolResults(await p.events(res.doc.thread_id)).filter((r) => r.input?.item_id);
    expect(results.map((r) => [r.ok, r.error?.code])).toEqual(
      Array(8).fill([false, 'EXECUTE_TOOL_FAILED']),
    );
    const seen = p.server.requests
      .flatMap((r) => latestToolResults('anthropic', r.body))
      .map(
        (r) =>
          (r as { error?: { details?: { data?: { code?: string } } } }).error?.details?.data?.code,
      );
    expect(seen).toEqual([
      'FS_PATH_PROTECTED',
      'FS_PATH_PROTECTED',
      'FS_PATH_INVALID',
      'FS_PATH_INVALID',
      'FS_PATH_LINK',
      'FS_PATH_PROTECTED',
      'FS_PATH_PROTECTED',
      'GIT_CONFIG_UNSAFE',
    ]);
    expect([tool('test_runner'), tool('build')]).toEqual(before);
    for (const path of [
      join(p.project, '.ai/directives/apps/task-manager/evil.md'),
      join(p.root, 'escaped.txt'),
      join(outside, 'escaped.txt'),
      join(repo, '.git/hooks/post-commit'),
      join(repo, 'server/harmless.js'),
      marker,
    ])
      expect(existsSync(path), path).toBe(false);
    expect(p.server.problems).toEqual([]);
  },
);
