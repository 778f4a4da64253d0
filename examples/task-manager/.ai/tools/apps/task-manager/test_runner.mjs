// Run the app's test suite with node --test and report the counts.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { readParams } from '@rye/runtime';
import { appFolder, main, runNode, tail } from './lib/app.mjs';

export const __version__ = '1.0.0';
export const __tool_type__ = 'javascript';
export const __executor_id__ = 'rye/core/runtimes/node_runtime';
export const __category__ = 'apps/task-manager';
// What its sandbox may reach: the app folder is a parameter, so the project (docs/sandbox.md).
export const __permissions__ = { read: ['.'], write: ['.'] };
export const __tool_description__ = 'Run the test suite via node --test and report passed and failed counts';
export const ENV_CONFIG = { env: { NODE_ENV: 'test', CI: 'true' } };
export const CONFIG_SCHEMA = {
  type: 'object',
  properties: {
    suite: { type: 'string', enum: ['all', 'server', 'client'], default: 'all' },
    app: { type: 'string', default: 'task-manager', description: 'the app folder, directly under the project folder' },
  },
  additionalProperties: false,
};

const count = (output, name) => Number(new RegExp(`^# ${name} (\\d+)$`, 'm').exec(output)?.[1] ?? 0);

await main(() => {
  const params = readParams();
  const { dir } = appFolder(params);
  const suite = params.suite ?? 'all';
  const files = readdirSync(join(dir, 'test'))
    .filter((f) => f.endsWith('.test.js'))
    .filter((f) => suite === 'all' || (suite === 'client') === f.startsWith('client'))
    .sort()
    .map((f) => join('test', f));
  const run = runNode(dir, ['--test', '--test-reporter=tap', ...files], { env: { NODE_ENV: 'test' } });
  const output = run.stdout;
  const failures = [...output.matchAll(/^\s*not ok \d+ - (.+)$/gm)].map((m) => m[1]);
  const failed = count(output, 'fail');
  // The output holds timings: shown only when something failed, so a passing
  // run's result (and the transcript that records it) is the same every time.
  return {
    suite,
    files,
    passed: count(output, 'pass'),
    failed,
    exit_code: run.status,
    failures,
    ...(failed > 0 || run.status !== 0 ? { output_tail: tail(output + run.stderr, 2000) } : {}),
  };
});
