// Shared by the task-manager tools: the app folder inside the project, the
// environment the app's own processes get, and running node in the app.
import { spawnSync } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { join, sep } from 'node:path';
import { projectPath, respond } from '@rye/runtime';

/** The app folder's real path; refuses a name with a separator or one leading out of the project. */
export function appFolder(params) {
  const name = params.app ?? 'task-manager';
  if (typeof name !== 'string' || !/^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/.test(name) || name.includes('..'))
    throw new Error(`Cannot use app ${JSON.stringify(String(name).slice(0, 100))}: give a folder name`);
  const root = realpathSync.native(projectPath() ?? process.cwd());
  let dir;
  try {
    dir = realpathSync.native(join(root, name));
  } catch {
    throw new Error(`Cannot find the app folder ${name}/ in the project`);
  }
  if (!dir.startsWith(root + sep)) throw new Error(`Cannot use app ${name}: it leads outside the project`);
  return { root, dir, name };
}

/** The environment of the app's processes: no rye authority or provider key is passed on. */
export function appEnv(extra = {}) {
  const env = {};
  for (const [key, value] of Object.entries(process.env))
    if (!/^(RYE_|ANTHROPIC_|OPENAI_)/.test(key)) env[key] = value;
  return { ...env, ...extra };
}

/** Run `node …args` in the app folder and collect its output. */
export function runNode(dir, args, { env = {}, timeoutMs = 120_000 } = {}) {
  const result = spawnSync(process.execPath, args, {
    cwd: dir,
    env: appEnv(env),
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: timeoutMs,
    maxBuffer: 8 * 1024 * 1024,
  });
  if (result.error) throw result.error;
  return result;
}

/** The last `max` characters of a text. */
export const tail = (text, max = 4000) => (text.length > max ? text.slice(-max) : text);

/** Run `fn` and print its result, or a failure the executor reports. */
export async function main(fn) {
  try {
    respond({ success: true, ...(await fn()) });
  } catch (error) {
    respond({ success: false, error: error instanceof Error ? error.message : String(error) });
    process.exitCode = 1;
  }
}
