// The app's server: start it detached on loopback, check it, stop it. Its pid,
// URL and daemon sandbox id live in <app>/.dev-server.json, so a later call (or
// the error hook) can stop it. In rye's sandbox the server outlives the call
// in a daemon sandbox of its own (docs/sandbox.md, "Daemon sandboxes"), which a
// later call, in another sandbox, sees only through rye: status and stop ask
// the system tool rye/core/sandbox/sandboxes over the operation channel. With
// the sandbox off, stop kills the server's process group. That file sits in a
// folder the app's code and a thread's file writes can change, so what it
// names is acted on only once it is shown to be this tool's: the pid a process
// running this app's server, the sandbox id a daemon rye started for this tool.
import { spawn, spawnSync } from 'node:child_process';
import {
  closeSync,
  existsSync,
  openSync,
  readFileSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { get } from 'node:http';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { readParams, rye } from '@rye/runtime';
import { appEnv, appFolder, main } from './lib/app.mjs';

export const __version__ = '1.0.0';
export const __tool_type__ = 'javascript';
export const __executor_id__ = 'rye/core/runtimes/node_runtime';
export const __category__ = 'apps/task-manager';
// What its sandbox may reach: the app folder is a parameter, so the project; the server
// it starts outlives the call (daemon), and later calls stop it through rye (docs/sandbox.md).
export const __permissions__ = {
  read: ['.'],
  write: ['.'],
  network: true,
  daemon: true,
  rye: ['rye.execute.tool.rye/core/sandbox/sandboxes'],
};
export const __tool_description__ = 'Manage the development server — install deps, start, stop, status';
export const ENV_CONFIG = { env: { NODE_ENV: 'development' } };
export const CONFIG_SCHEMA = {
  type: 'object',
  properties: {
    action: { type: 'string', enum: ['install', 'start', 'stop', 'status'] },
    port: { type: 'integer', minimum: 0, maximum: 65535, default: 3000, description: '0: any free port' },
    app: { type: 'string', default: 'task-manager', description: 'the app folder, directly under the project folder' },
  },
  required: ['action'],
  additionalProperties: false,
};

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
/**
 * Whether the process runs. An exited process that nobody has reaped yet (the
 * server outlives the tool that started it, so its parent becomes init, and
 * some containers' init reaps late) is a zombie that kill(pid, 0) still finds:
 * on Linux its state in /proc says so.
 */
const alive = (pid) => {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return error.code === 'EPERM';
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat[stat.lastIndexOf(')') + 2] !== 'Z';
  } catch {
    return true;
  }
};

function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
    probe.on('error', reject);
  });
}

/**
 * GET /api/tasks once, with node:http (fetch would load its HTTP client,
 * tens of milliseconds in a process that makes one request).
 */
function probe(url) {
  return new Promise((resolve) => {
    const req = get(`${url}api/tasks`, { timeout: 2000, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => {
        try {
          const body = JSON.parse(text);
          resolve({ status: res.statusCode, tasks: Array.isArray(body.tasks) ? body.tasks.length : null });
        } catch (error) {
          resolve({ status: res.statusCode, error: error.message });
        }
      });
      res.on('error', (error) => resolve({ status: null, error: error.message }));
    });
    req.on('timeout', () => req.destroy(new Error('no answer within 2 s')));
    req.on('error', (error) => resolve({ status: null, error: error.message }));
  });
}

const SERVER_ENTRY = 'server/index.js';

const SANDBOXES = 'rye/core/sandbox/sandboxes';
const TOOL_ID = 'apps/task-manager/dev_server';
/** The id of this call's daemon sandbox: set only when rye contains it and lets it outlive the call. */
const SANDBOX_ID = process.env.RYE_SANDBOX_ID || null;

/** The state file's pid, URL and sandbox id, or null when there is none; a file of another shape is refused. */
function readState(file) {
  if (!existsSync(file)) return null;
  let state;
  try {
    state = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    state = null;
  }
  // kill(-pid) with 0 or 1 would signal this tool's own group or every process it may.
  if (!Number.isSafeInteger(state?.pid) || state.pid < 2 || typeof state.url !== 'string')
    throw new Error(`${file} is not a state file this tool wrote (a pid above 1 and a URL): remove it`);
  if (state.sandbox !== undefined && state.sandbox !== null && !/^[0-9a-f]{12}$/.test(state.sandbox))
    throw new Error(`${file} is not a state file this tool wrote (a sandbox id of 12 hex digits): remove it`);
  return state;
}

/** One call of the sandboxes tool over the channel: its data, or an error with rye's reason. */
async function sandboxes(parameters) {
  const answer = await rye.execute({ item_type: 'tool', item_id: SANDBOXES, parameters });
  if (answer.status !== 'success')
    throw new Error(`rye refused ${SANDBOXES} ${parameters.action}: ${answer.error?.code ?? ''} ${answer.error?.message ?? ''}`.trim());
  return answer.data;
}

/**
 * Whether the daemon sandbox the state names runs and is one rye started for
 * this tool in this project (the tool lists the calling project's only): a
 * planted id of another daemon is not this server's.
 */
async function ownDaemon(state) {
  if (typeof state?.sandbox !== 'string') return false;
  const { daemons } = await sandboxes({ action: 'list' });
  return daemons.some((d) => d.id === state.sandbox && d.item_id === TOOL_ID);
}

/**
 * Whether `pid` is this app's server: a group leader (the server is started
 * detached) running `node server/index.js` in `dir`. Read from /proc on
 * Linux; elsewhere from /bin/ps, which gives the command but not the folder
 * (by its path: the runtime puts the tool folder's node_modules/.bin first on PATH).
 */
function isAppServer(pid, dir) {
  if (existsSync('/proc/self/stat')) {
    try {
      const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const group = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
      return argv[1] === SERVER_ENTRY && group === pid && readlinkSync(`/proc/${pid}/cwd`) === dir;
    } catch {
      return false;
    }
  }
  const ps = spawnSync('/bin/ps', ['-o', 'pgid=,command=', '-p', String(pid)], { encoding: 'utf8' });
  const [group, , entry] = ps.stdout.trim().split(/\s+/);
  return ps.status === 0 && Number(group) === pid && entry === SERVER_ENTRY;
}

/** Whether the state names a server of this app that runs (not a stale or a foreign pid). */
const serving = (state, dir) => state !== null && alive(state.pid) && isAppServer(state.pid, dir);

async function start(dir, stateFile, port) {
  const state = readState(stateFile);
  if (serving(state, dir) || (await ownDaemon(state)))
    throw new Error(`the server is already running at ${state.url} (${state.sandbox ? `sandbox ${state.sandbox}` : `pid ${state.pid}`})`);
  const chosen = port === 0 ? await freePort() : port;
  const log = openSync(join(dir, '.dev-server.log'), 'w');
  const child = spawn(process.execPath, [SERVER_ENTRY], {
    cwd: dir,
    env: appEnv({ PORT: String(chosen), HOST: '127.0.0.1' }),
    detached: true,
    stdio: ['ignore', log, log],
  });
  closeSync(log);
  child.unref();
  const url = `http://127.0.0.1:${chosen}/`;
  writeFileSync(stateFile, JSON.stringify({ pid: child.pid, port: chosen, url, sandbox: SANDBOX_ID }) + '\n');
  for (let i = 0; i < 400; i += 1) {
    const answer = await probe(url);
    if (answer.status === 200)
      return { action: 'start', url, port: chosen, pid: child.pid, sandbox: SANDBOX_ID, ...answer };
    if (!alive(child.pid)) break;
    await sleep(25);
  }
  await kill(child.pid);
  rmSync(stateFile, { force: true });
  throw new Error(`the server did not answer on ${url}: ${readFileSync(join(dir, '.dev-server.log'), 'utf8').slice(-1000)}`);
}

/** SIGTERM the process group of `pid` (a server this call started, or one shown to be this app's), SIGKILL after 5 s. */
async function kill(pid) {
  const signal = (name) => {
    try {
      process.kill(-pid, name);
    } catch {
      // already gone
    }
  };
  signal('SIGTERM');
  for (let i = 0; i < 250 && alive(pid); i += 1) await sleep(20);
  if (alive(pid)) signal('SIGKILL');
}

async function stop(dir, stateFile) {
  const state = readState(stateFile);
  if (state === null) return { action: 'stop', stopped: false, reason: 'not running' };
  if (await ownDaemon(state)) {
    const { stopped } = await sandboxes({ action: 'stop', id: state.sandbox });
    rmSync(stateFile, { force: true });
    return { action: 'stop', stopped, sandbox: state.sandbox };
  }
  if (!serving(state, dir)) {
    rmSync(stateFile, { force: true });
    const where = state.sandbox ? `in sandbox ${state.sandbox}` : `as pid ${state.pid}`;
    return { action: 'stop', stopped: false, reason: `not running: no server of this app runs ${where}` };
  }
  await kill(state.pid);
  rmSync(stateFile, { force: true });
  return { action: 'stop', stopped: true, pid: state.pid };
}

await main(async () => {
  const params = readParams();
  const { dir } = appFolder(params);
  const stateFile = join(dir, '.dev-server.json');
  switch (params.action) {
    case 'install': {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
      const deps = Object.keys({ ...pkg.dependencies, ...pkg.devDependencies });
      if (deps.length > 0) throw new Error(`the app declares dependencies (${deps.join(', ')}); this tool installs nothing: run npm install yourself`);
      return { action: 'install', installed: [], note: 'zero dependencies: nothing to install' };
    }
    case 'start':
      return start(dir, stateFile, params.port ?? 3000);
    case 'stop':
      return stop(dir, stateFile);
    case 'status': {
      const state = readState(stateFile);
      const daemon = await ownDaemon(state);
      if (!daemon && !serving(state, dir)) return { action: 'status', running: false };
      const where = daemon ? { sandbox: state.sandbox } : { pid: state.pid };
      return { action: 'status', running: true, url: state.url, ...where, ...(await probe(state.url)) };
    }
    default:
      throw new Error(`unknown action ${params.action}`);
  }
});
