// Production build: run the app's scripts/build.js, which writes dist/.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { readParams } from '@rye/runtime';
import { appFolder, main, runNode, tail } from './lib/app.mjs';

export const __version__ = '1.0.0';
export const __tool_type__ = 'javascript';
export const __executor_id__ = 'rye/core/runtimes/node_runtime';
export const __category__ = 'apps/task-manager';
// What its sandbox may reach: the app folder is a parameter, so the project (docs/sandbox.md).
export const __permissions__ = { read: ['.'], write: ['.'] };
export const __tool_description__ = 'Run the production build (scripts/build.js) and list dist/';
export const CONFIG_SCHEMA = {
  type: 'object',
  properties: {
    target: { type: 'string', enum: ['client', 'server', 'all'], default: 'all' },
    app: { type: 'string', default: 'task-manager', description: 'the app folder, directly under the project folder' },
  },
  additionalProperties: false,
};

await main(() => {
  const params = readParams();
  const { dir } = appFolder(params);
  const run = runNode(dir, ['scripts/build.js'], { env: { NODE_ENV: 'production' } });
  if (run.status !== 0) throw new Error(`the build failed: ${tail(run.stderr || run.stdout, 2000)}`);
  const dist = join(dir, 'dist');
  return {
    target: params.target ?? 'all',
    dist: existsSync(dist) ? readdirSync(dist).sort() : [],
  };
});
