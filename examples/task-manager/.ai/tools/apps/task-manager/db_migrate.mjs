// The app's store: migrate the JSON file to the current schema, seed it, or report it.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readParams } from '@rye/runtime';
import { appFolder, main, runNode, tail } from './lib/app.mjs';

export const __version__ = '1.0.0';
export const __tool_type__ = 'javascript';
export const __executor_id__ = 'rye/core/runtimes/node_runtime';
export const __category__ = 'apps/task-manager';
// What its sandbox may reach: the app folder is a parameter, so the project (docs/sandbox.md).
export const __permissions__ = { read: ['.'], write: ['.'] };
export const __tool_description__ = 'Migrate, seed or inspect the app data store (data/tasks.json)';
export const CONFIG_SCHEMA = {
  type: 'object',
  properties: {
    action: { type: 'string', enum: ['migrate', 'seed', 'status'], default: 'migrate' },
    app: { type: 'string', default: 'task-manager', description: 'the app folder, directly under the project folder' },
  },
  additionalProperties: false,
};

await main(() => {
  const params = readParams();
  const { dir } = appFolder(params);
  const file = join(dir, 'data', 'tasks.json');
  const action = params.action ?? 'migrate';
  if (action === 'status') {
    if (!existsSync(file)) return { action, exists: false };
    const data = JSON.parse(readFileSync(file, 'utf8'));
    return { action, exists: true, version: data.version, tasks: data.tasks.length };
  }
  const script = action === 'seed' ? 'server/db/seed.js' : 'server/db/migrate.js';
  const run = runNode(dir, [script], { env: { DATA_FILE: file } });
  if (run.status !== 0) throw new Error(`${script} failed: ${tail(run.stderr || run.stdout, 2000)}`);
  return { action, ...JSON.parse(run.stdout.trim().split('\n').at(-1) ?? '{}') };
});
