// Issue 16 benchmarks: `rye mcp serve` over stdio, driven by the SDK's own
// client. mcp.call_p50_ms is the p50 of a tools/call round trip minus the p50
// of the same operation run in process (runOperation), i.e. what MCP, the
// pipe and the per-call authority add; mcp.start_ms is spawn to initialized;
// mcp.eof_exit_ms is stdin close to exit while a tool is still running.
import { spawn } from 'node:child_process';
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
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  ensureSelfTrusted,
  generateKeyFiles,
  keyDir,
  readSigner,
  resolveSpaces,
  signText,
} from '../dist/src/index.js';
import { closeCatalogDbs } from '../dist/src/catalog/index.js';
import { operatorAuthority } from '../dist/src/capabilities/index.js';
import { runOperation } from '../dist/src/ops/index.js';
import { median, report } from './util.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const RYE = join(root, 'bin', 'rye.js');
const CALLS = 300;
const STARTS = 7;
const EXITS = 5;

function write(path, text) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

function knowledge(i) {
  return `\`\`\`yaml\nname: note_${i}\ntitle: Note ${i} about ${i % 2 ? 'cursor pagination' : 'retry budgets'}\nentry_type: reference\nversion: "1.0.0"\ncategory: bench/notes\n\`\`\`\n\nBody of note ${i}: the api returns a cursor; retries back off.\n`;
}

const SLEEPER = `import json, os, sys, time
__version__ = "1.0.0"
__tool_type__ = "python"
__executor_id__ = "rye/core/runtimes/python_script_runtime"
__category__ = "bench"
__tool_description__ = "writes its pid, then sleeps"
params = json.loads(sys.argv[sys.argv.index("--params") + 1])
open(params["path"], "w").write(str(os.getpid()))
time.sleep(60)
`;

async function setup(work) {
  const project = join(work, 'project');
  const user = join(work, 'user');
  const system = join(work, 'system');
  cpSync(join(root, 'dist', 'system'), system, { recursive: true });
  const env = { ...process.env, RYE_USER_SPACE: user, RYE_SYSTEM_SPACE: system };
  delete env.RYE_CACHE_DIR;
  delete env.RYE_CAP_TOKEN;
  const spaces = resolveSpaces({ project, env });
  await generateKeyFiles(keyDir(spaces));
  const signer = await readSigner(keyDir(spaces));
  await ensureSelfTrusted(spaces, signer);
  for (let i = 0; i < 200; i += 1) {
    const text = signText(knowledge(i), { itemType: 'knowledge', extension: '.md', signer }).text;
    write(join(project, '.ai', 'knowledge', 'bench', 'notes', `note_${i}.md`), text);
  }
  const sleeper = signText(SLEEPER, { itemType: 'tool', extension: '.py', signer }).text;
  write(join(project, '.ai', 'tools', 'bench', 'sleeper.py'), sleeper);
  // Past the catalog's racy window (2 s): files this fresh are re-hashed on every search.
  await new Promise((resolve) => setTimeout(resolve, 2100));
  return { project, env, spaces };
}

async function connect(project, env) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [RYE, 'mcp', 'serve', '--project', project],
    env,
    stderr: 'ignore',
  });
  const client = new Client({ name: 'bench', version: '1' });
  const start = performance.now();
  await client.connect(transport);
  return { client, ms: performance.now() - start };
}

async function timed(fn) {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

/** Spawn the server, start the sleeper tool, then time stdin close to exit. */
async function eofExit(project, env, marker) {
  const child = spawn(process.execPath, [RYE, 'mcp', 'serve', '--project', project], {
    env,
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  const exited = new Promise((resolve) => child.once('exit', () => resolve(performance.now())));
  const send = (m) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...m })}\n`);
  send({
    id: 0,
    method: 'initialize',
    params: {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'b', version: '1' },
    },
  });
  send({ method: 'notifications/initialized' });
  send({
    id: 1,
    method: 'tools/call',
    params: {
      name: 'execute',
      arguments: { item_type: 'tool', item_id: 'bench/sleeper', parameters: { path: marker } },
    },
  });
  while (!(existsSync(marker) && readFileSync(marker, 'utf8') !== ''))
    await new Promise((resolve) => setTimeout(resolve, 10));
  const start = performance.now();
  child.stdin.end();
  return (await exited) - start;
}

export async function run() {
  const work = mkdtempSync(join(tmpdir(), 'rye-bench-mcp-'));
  try {
    const { project, env, spaces } = await setup(work);

    const starts = [];
    for (let i = 0; i < STARTS; i += 1) {
      const { client, ms } = await connect(project, env);
      starts.push(ms);
      await client.close();
    }
    report('mcp.start_ms', median(starts), 'ms', {
      runs: STARTS,
      min_ms: Number(Math.min(...starts).toFixed(1)),
      goal: '<= 600 ms',
    });

    const calls = {
      search: { query: 'cursor pagination', limit: 10 },
      load: { item_type: 'knowledge', item_id: 'bench/notes/note_42' },
    };
    const ctx = { spaces, env, authority: operatorAuthority() };
    const { client } = await connect(project, env);
    try {
      for (const [name, args] of Object.entries(calls)) {
        for (let i = 0; i < 30; i += 1) {
          await client.callTool({ name, arguments: args });
          await runOperation(name, args, ctx);
        }
        // Interleaved, so both medians see the same load on a shared machine.
        const mcpTimes = [];
        const opTimes = [];
        for (let i = 0; i < CALLS; i += 1) {
          mcpTimes.push(await timed(() => client.callTool({ name, arguments: args })));
          opTimes.push(await timed(() => runOperation(name, args, ctx)));
        }
        const overMcp = median(mcpTimes);
        const inProcess = median(opTimes);
        report('mcp.call_p50_ms', Math.max(0, overMcp - inProcess), 'ms', {
          op: name,
          stdio_p50_ms: Number(overMcp.toFixed(3)),
          op_p50_ms: Number(inProcess.toFixed(3)),
          calls: CALLS,
          goal: '<= 1 ms',
        });
      }
    } finally {
      await client.close();
      closeCatalogDbs();
    }

    const exits = [];
    for (let i = 0; i < EXITS; i += 1)
      exits.push(await eofExit(project, env, join(work, `sleeper-${i}.pid`)));
    report('mcp.eof_exit_ms', median(exits), 'ms', {
      runs: EXITS,
      max_ms: Number(Math.max(...exits).toFixed(1)),
      live_handle: 'a running tool process',
      goal: '<= 1000 ms',
    });
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
